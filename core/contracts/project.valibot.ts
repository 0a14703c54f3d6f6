// A project as the client reads it.
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';
import { ProjectConfigSchema } from './project-config.valibot.ts';

export const ProjectSchema = v.object({ id: Uuid, name: v.string(), config: ProjectConfigSchema, created_at: Timestamp });
export type Project = v.InferOutput<typeof ProjectSchema>;
