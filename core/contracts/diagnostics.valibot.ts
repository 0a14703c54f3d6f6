// GET /api/health/daily as the client reads it.
import * as v from 'valibot';

const int = v.pipe(v.number(), v.integer());

export const HealthDaySchema = v.object({
  day: v.string(),
  crashes: int,
  client_crashes: int,
  unclean_stops: int,
  restarts: int,
  starts: int,
});

export const HealthDailySchema = v.object({ days: v.array(HealthDaySchema) });
export type HealthDaily = v.InferOutput<typeof HealthDailySchema>;
