// Project reads and creation: the project as the API shows it.
import type { Project } from '../../core/contracts/project.ts';
import type { ProjectConfig } from '../../core/contracts/project-config.ts';
import type { Sql } from '../../core/db/client.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.projects`. */
export const PROJECT_COLUMNS = selectList<Project>({ id: 'id', name: 'name', config: 'config', created_at: iso('created_at') });

/** Creates a project (dispatch.create_project: journals project.created); its id. */
export async function createProject(sql: Sql, name: string, config: ProjectConfig = {}): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select dispatch.create_project(${name}, ${JSON.stringify(config)}::text::jsonb) as id`;
  return row!.id;
}

/** Every project, oldest first. */
export async function listProjects(sql: Sql): Promise<Project[]> {
  return sql<Project[]>`select ${sql.unsafe(PROJECT_COLUMNS)} from dispatch.projects order by created_at`;
}
