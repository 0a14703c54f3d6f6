// Project reads: the project as the API shows it.
import type { Project } from '../../core/contracts/project.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.projects`. */
export const PROJECT_COLUMNS = selectList<Project>({ id: 'id', name: 'name', config: 'config', created_at: iso('created_at') });
