// The one way this codebase opens Postgres: postgres.js with int8 parsed as numbers (seq fits in 2^53).
import postgres from 'postgres';

export type Sql = postgres.Sql<{ bigint: number }>;

/** Opens a pool; query text and parameters never reach the logs (notices are dropped). */
export function createSql(url: string, options: { max?: number; application?: string; idleTimeout?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    ...(options.idleTimeout ? { idle_timeout: options.idleTimeout } : {}),
    onnotice: () => {},
    connection: { application_name: options.application ?? 'petal-dispatch' },
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
    },
  }) as unknown as Sql;
}
