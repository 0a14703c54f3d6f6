// The project's check for one task, as the journal has it: "check passed ✓ 12 s" or "check failed
// (exit 1)" with the output's tail one tap away, the attempt history (attempt 1 failed → attempt 2
// passed), "stuck" plainly; "unverified" when the project has no check. Output is text, inert.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import * as v from 'valibot';
import { api } from '../api.ts';
import { EventRowSchema } from '../schemas.ts';

const Verdict = v.looseObject({
  attempt: v.number(),
  passed: v.boolean(),
  exit_code: v.nullable(v.number()),
  duration_ms: v.number(),
  output_tail: v.string(),
  reason: v.optional(v.nullable(v.string())),
});
type Verdict = v.InferOutput<typeof Verdict>;

const Page = v.looseObject({ events: v.array(EventRowSchema) });

/** "passed ✓ 12 s" / "failed (exit 1)" / "failed (timed out after 1 s)". */
export function verdictText(c: Verdict): string {
  if (c.passed) return `check passed ✓ ${Math.max(1, Math.round(c.duration_ms / 1000))} s`;
  return `check failed (${c.exit_code !== null ? `exit ${c.exit_code}` : (c.reason ?? 'no exit code')})`;
}

@customElement('pd-check')
export class PdCheck extends LitElement {
  static override styles = css`
    :host { display: block; margin: 0.5rem 0; }
    .passed { color: var(--pd-ok, #1a7f37); }
    .failed, .stuck { color: var(--pd-bad, #c62828); }
    pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16rem; overflow: auto; font-size: 0.8rem; }
    .history { font-size: 0.85rem; opacity: 0.8; }
  `;

  /** The task whose checks are shown. */
  @property() task = '';
  /** Whether its project has a check (config.verify). */
  @property({ type: Boolean }) configured = false;
  /** The task's status reason (a stuck task says so there). */
  @property() reason: string | null = null;
  /** Changes whenever the task moves, so the verdicts are read again. */
  @property() version = '';

  @state() private _checks: Verdict[] = [];

  protected override updated(changed: Map<string, unknown>): void {
    if (changed.has('task') || changed.has('version')) void this.load();
  }

  private async load(): Promise<void> {
    if (!this.task || !this.configured) return;
    const page = await api(Page, `/api/events?task=${this.task}&limit=1000`).catch(() => null);
    if (!page) return;
    this._checks = page.events
      .filter((e) => e.event_type === 'verify.finished')
      .flatMap((e) => {
        const r = v.safeParse(Verdict, e.payload);
        return r.success ? [r.output] : [];
      });
  }

  override render() {
    if (!this.configured) return html`<span data-testid="check" class="unverified">unverified</span>`;
    const last = this._checks.at(-1);
    if (!last) return html`<span data-testid="check">check not run yet</span>`;
    const stuck = this.reason?.startsWith('stuck:');
    return html`<section data-testid="check">
      <span class=${last.passed ? 'passed' : 'failed'}>${verdictText(last)}</span>
      ${stuck ? html` · <strong class="stuck" data-testid="stuck">stuck</strong>: the fix changed nothing` : nothing}
      ${this._checks.length > 1
        ? html`<div class="history" data-testid="check-history">${this._checks.map((c) => `attempt ${c.attempt} ${c.passed ? 'passed' : 'failed'}`).join(' → ')}</div>`
        : nothing}
      ${last.passed ? nothing : html`<details><summary>output</summary><pre data-testid="check-output">${last.output_tail}</pre></details>`}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-check': PdCheck;
  }
}
