// /api/projects: create and list projects; a project's bounded state rollup.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { CreateProject, ProjectSchema, UpdateProject, type Project } from '../../core/contracts/project.ts';
import { createProject, listProjects, PROJECT_COLUMNS } from '../queries/projects.ts';
import { exists } from '../queries/tasks.ts';
import { IdParam } from '../schemas.ts';
import { inspectRepo, RepoError } from '../../core/git/repo.ts';
import type { ProjectConfig } from '../../core/contracts/project-config.ts';
import { WorkdirError, workdirProblem } from '../../core/workdir.ts';
import { programFound } from '../../core/program.ts';

/**
 * A config naming a working directory or a repo: checked now (4xx when unusable, nothing created),
 * a repo stored with its top level and base.
 */
async function checkedConfig(config: ProjectConfig | undefined, gitBin: string | undefined): Promise<ProjectConfig> {
  if (config?.cwd !== undefined) {
    const problem = workdirProblem(config.cwd);
    if (problem) throw new AppError(400, 'invalid_cwd', `config.cwd: ${new WorkdirError(config.cwd, problem).message}`, { field: 'config.cwd', problem });
  }
  if (config?.verify) {
    // Looked up on the PATH this process hands its runner's children; a relative path with a
    // slash (./check.sh) lives in the worktree, so it is the check's own run that finds it.
    const program = config.verify.command[0]!;
    if (!programFound(program, process.env.PATH)) {
      throw new AppError(400, 'invalid_verify', `config.verify.command: no program ${JSON.stringify(program)} on the PATH`, { field: 'config.verify.command' });
    }
  }
  if (!config?.repo) {
    if (config?.base) throw new AppError(400, 'invalid_input', 'config.base needs config.repo');
    return config ?? {};
  }
  try {
    const info = await inspectRepo(config.repo, config.base, gitBin);
    return { ...config, repo: info.repo, base: info.base };
  } catch (err) {
    if (err instanceof RepoError) throw new AppError(err.code === 'dirty_base' ? 409 : 400, err.code, err.message, { field: 'config.repo' });
    throw err;
  }
}

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id'), 409: json(ErrorBody, 'conflict') };

export function projectRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/projects',
        request: { body: { content: { 'application/json': { schema: CreateProject } }, required: true } },
        responses: { 201: json(ProjectSchema, 'the created project'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const body = c.req.valid('json');
        const [taken] = await sql`select 1 as one from dispatch.projects where lower(name) = lower(${body.name})`;
        if (taken) throw new AppError(409, 'conflict', `a project named ${body.name} exists`);
        const config = await checkedConfig(body.config, c.var.deps.config.GIT_BIN);
        const id = await createProject(sql, body.name, config);
        const [project] = await sql<Project[]>`select ${sql.unsafe(PROJECT_COLUMNS)} from dispatch.projects where id = ${id}`;
        return c.json(project!, 201);
      },
    )
    .openapi(
      createRoute({
        method: 'patch',
        path: '/projects/{id}',
        request: { params: IdParam, body: { content: { 'application/json': { schema: UpdateProject } }, required: true } },
        responses: { 200: json(ProjectSchema, 'the project as it is now'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        if (!(await exists(sql, 'projects', id))) throw new AppError(404, 'not_found', `no project ${id}`);
        if (body.name !== undefined) {
          const [taken] = await sql`select 1 as one from dispatch.projects where lower(name) = lower(${body.name}) and id <> ${id}`;
          if (taken) throw new AppError(409, 'conflict', `a project named ${body.name} exists`);
        }
        const config = body.config === undefined ? null : JSON.stringify(await checkedConfig(body.config, c.var.deps.config.GIT_BIN));
        await sql`select dispatch.update_project(${id}, ${body.name ?? null}, ${config}::text::jsonb)`;
        const [project] = await sql<Project[]>`select ${sql.unsafe(PROJECT_COLUMNS)} from dispatch.projects where id = ${id}`;
        return c.json(project!, 200);
      },
    )
    .openapi(
      createRoute({ method: 'get', path: '/projects', responses: { 200: json(z.object({ projects: z.array(ProjectSchema) }), 'projects') } }),
      async (c) => {
        return c.json({ projects: await listProjects(c.var.deps.sql) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/projects/{id}/state',
        request: { params: IdParam },
        responses: { 200: json(z.record(z.string(), z.unknown()), 'bounded project rollup'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        if (!(await exists(sql, 'projects', id))) throw new AppError(404, 'not_found', `no project ${id}`);
        const [row] = await sql<{ s: Record<string, unknown> }[]>`select dispatch.project_state(${id}) as s`;
        return c.json(row!.s, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/projects/{id}/turn/cancel',
        request: { params: IdParam },
        responses: {
          200: json(z.object({ project_id: Uuid, status: z.enum(['cancelling', 'none']) }), 'the open orchestrator turn is being stopped (none: no turn was open)'),
          ...errors,
        },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        if (!(await exists(sql, 'projects', id))) throw new AppError(404, 'not_found', `no project ${id}`);
        const [row] = await sql<{ s: 'cancelling' | 'none' }[]>`select dispatch.cancel_turn(${id}) as s`;
        return c.json({ project_id: id, status: row!.s }, 200);
      },
    );
}
