// A project: the unit a person works on, with its own orchestrator and config.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';
import { ProjectConfigInput, ProjectConfigSchema } from './project-config.ts';

export const ProjectSchema = z
  .object({ id: Uuid, name: z.string(), config: ProjectConfigSchema, created_at: Timestamp })
  .openapi('Project');
export type Project = z.output<typeof ProjectSchema>;

/** POST /api/projects */
export const CreateProject = z.object({
  name: z.string().trim().min(1).max(200),
  config: ProjectConfigInput.optional(),
});

/** PATCH /api/projects/:id: a new name, a new config (replaces the old one), or both. */
export const UpdateProject = z
  .object({ name: z.string().trim().min(1).max(200).optional(), config: ProjectConfigInput.optional() })
  .refine((b) => b.name !== undefined || b.config !== undefined, 'send a name, a config, or both');
