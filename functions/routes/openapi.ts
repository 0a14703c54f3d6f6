// Shared by the route groups: a router whose validation failures answer in the one error shape,
// and a shorthand for JSON responses in route definitions.
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { AppEnv } from '../deps.ts';

export function newRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issues = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
      return c.json({ error: { code: 'invalid_input', message: summary, details: issues } }, 400);
    },
  });
}

export const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
