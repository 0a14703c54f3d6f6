// A small SSE reader for tests: fetch-based, so it can send Last-Event-ID and be aborted at will.
export interface SseEvent {
  id: string | null;
  data: string;
}

export interface SseConnection {
  status: number;
  /** Resolves when the stream ends (server closed it, or abort()). */
  done: Promise<void>;
  abort(): void;
}

export async function connectSse(
  url: string,
  onEvent: (e: SseEvent) => void,
  opts: { lastEventId?: string | number; headers?: Record<string, string>; onComment?: (c: string) => void; onRetry?: (ms: number) => void } = {},
): Promise<SseConnection> {
  const ac = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
  const res = await fetch(url, { headers, signal: ac.signal });
  const done = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) return;
        buf += decoder.decode(value, { stream: true });
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          let id: string | null = null;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) opts.onComment?.(line.slice(1).trim());
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('retry:')) opts.onRetry?.(Number(line.slice(6).trim()));
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) onEvent({ id, data: data.join('\n') });
        }
      }
    } catch {
      /* aborted or reset */
    }
  })();
  return { status: res.status, done, abort: () => ac.abort() };
}
