// Claude Code stream-json lines → typed raw journal events. The only module that knows the line
// shapes; the substrate's own ids (session_id, message.id, uuid) stay inside the payload.

export const OVERSIZED_BYTES = 1024 * 1024;

export interface ClassifiedLine {
  eventType: string;
  /** The payload as JSON text, ready to embed; for JSON lines it is the line itself, unparsed twice. */
  payloadJson: string;
  /** The parsed object, for JSON object lines (callers may inspect it; it is not re-serialised). */
  parsed?: Record<string, unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Classifies one stdout line (without its newline). Never throws. */
export function classifyLine(line: Buffer): ClassifiedLine {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return binary(line, 'invalid_utf8');
  }
  if (text.includes('\u0000')) return binary(line, 'nul_byte');
  if (text.endsWith('\r')) text = text.slice(0, -1);

  if (line.length >= OVERSIZED_BYTES) {
    return { eventType: 'stdout.oversized', payloadJson: JSON.stringify({ bytes: line.length, text }) };
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      return {
        eventType: 'stdout.truncated_json',
        payloadJson: JSON.stringify({ text, error: (err as Error).message }),
      };
    }
    return { eventType: 'stdout.non_json', payloadJson: JSON.stringify({ text }) };
  }

  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { eventType: 'claude.unknown', payloadJson: JSON.stringify({ value }) };
  }
  // Postgres jsonb cannot hold U+0000; keep such a line as text rather than lose it.
  if (text.includes('\\u0000')) {
    return { eventType: 'stdout.rejected', payloadJson: JSON.stringify({ text, reason: 'contains \\u0000' }) };
  }
  const obj = value as Record<string, unknown>;
  return { eventType: eventTypeOf(obj), payloadJson: text.trim(), parsed: obj };
}

function eventTypeOf(obj: Record<string, unknown>): string {
  switch (obj.type) {
    case 'system':
      if (obj.subtype === 'init') return 'claude.init';
      if (obj.subtype === 'api_retry') return 'claude.api_retry';
      return 'claude.system';
    case 'assistant':
      return 'claude.assistant';
    case 'user': {
      const content = (obj.message as { content?: unknown } | undefined)?.content;
      const hasToolResult =
        Array.isArray(content) && content.some((c) => (c as { type?: unknown })?.type === 'tool_result');
      return hasToolResult ? 'claude.tool_result' : 'claude.user';
    }
    case 'result':
      return 'claude.result';
    case 'stream_event':
      return 'claude.stream_event';
    default:
      return 'claude.unknown';
  }
}

function binary(line: Buffer, reason: 'invalid_utf8' | 'nul_byte'): ClassifiedLine {
  return {
    eventType: 'stdout.binary',
    payloadJson: JSON.stringify({ reason, bytes: line.length, base64: line.toString('base64') }),
  };
}

/** Splits a byte stream into lines on \n, keeping bytes intact (no decoding here). */
export class LineSplitter {
  private pending: Buffer[] = [];

  constructor(private readonly onLine: (line: Buffer) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (this.pending.length) {
        this.pending.push(piece);
        this.onLine(Buffer.concat(this.pending));
        this.pending = [];
      } else {
        this.onLine(Buffer.from(piece));
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  /** Emits a last line that had no newline (a truncated final write is still a line). */
  end(): void {
    if (this.pending.length) {
      this.onLine(Buffer.concat(this.pending));
      this.pending = [];
    }
  }
}
