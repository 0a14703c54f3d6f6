// Select lists that produce a wire shape straight from SQL. Each is a map from every field of the
// shape (core/contracts) to its SQL expression, so the compiler refuses a list that misses a field
// or adds one; timestamps leave the database already in the API's ISO form (dispatch.iso).

/** `expr as field, …` for a projection. */
export function selectList<T>(projection: { [K in keyof T]-?: string }): string {
  return Object.entries(projection as Record<string, string>)
    .map(([field, expr]) => (expr === field ? field : `${expr} as ${field}`))
    .join(', ');
}

/** The API's form of a timestamp column. */
export const iso = (column: string) => `dispatch.iso(${column})`;
