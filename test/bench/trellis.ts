// Bench section `trellis`: how long a Trellis read takes to answer — the whole view, and the
// "unavailable" answer when Trellis hangs (the 1 s budget) or is down (connection refused).
import { startTrellis } from '../../fixtures/trellis/server.ts';
import { readLiveThread, readTrellis } from '../../core/trellis.ts';
import { pct, r1, type Print } from './stats.ts';



async function time(n: number, fn: () => Promise<unknown>): Promise<{ p50_ms: number; p99_ms: number; max_ms: number; n: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { p50_ms: r1(pct(ms, 50)), p99_ms: r1(pct(ms, 99)), max_ms: r1(Math.max(...ms)), n };
}

export async function trellisBench(print: Print): Promise<void> {
  const threads = Array.from({ length: 50 }, (_, i) => ({
    id: `th_${i}`,
    title: `Thread ${i}`,
    updated_at: new Date().toISOString(),
    recent_context: Array.from({ length: 20 }, (_, j) => ({ role: j % 2 ? 'assistant' : 'user', text: `entry ${j} of thread ${i}` })),
  }));
  const server = await startTrellis(threads, 'th_0');
  const opts = { url: server.url };
  print('trellis view (up)', await time(200, () => readTrellis(opts)));
  print('trellis live thread (up)', await time(200, () => readLiveThread(opts)));
  server.set({ mode: 'slow' });
  print('trellis unavailable (hang)', await time(5, () => readTrellis(opts)));
  await server.close();
  print('trellis unavailable (down)', await time(200, () => readTrellis(opts)));
}
