// What the client accepts from the API and the stream, checked with valibot at the boundary. The
// schemas are the client side of the wire contracts (core/contracts/*.valibot.ts), one per shape,
// kept in step with the server's by test/core/contracts.
export { ErrorBody as ErrorSchema } from '../../core/contracts/common.valibot.ts';
export { EventSchema as EventRowSchema, EventSummarySchema, type EventRow, type EventSummary } from '../../core/contracts/event.valibot.ts';
export { GateListSchema, GateSchema, type Gate } from '../../core/contracts/gate.valibot.ts';
export { FocusSchema, type Focus } from '../../core/contracts/focus.valibot.ts';
export { MessageSchema as PendingMessageSchema, type Message } from '../../core/contracts/message.valibot.ts';
export { ProjectSchema, type Project } from '../../core/contracts/project.valibot.ts';
export { SessionSchema, type Session } from '../../core/contracts/session.valibot.ts';
export { StateSchema, type State } from '../../core/contracts/state.valibot.ts';
export { StatusRowSchema, type StatusRow } from '../../core/contracts/status.valibot.ts';
export { TaskSchema, type Task } from '../../core/contracts/task.valibot.ts';
export { TrellisViewSchema as TrellisSchema, type TrellisView as Trellis } from '../../core/contracts/trellis.valibot.ts';
export { UsageSchema, type Usage } from '../../core/contracts/usage.valibot.ts';
export { WorkingSetSchema, type WorkingSet } from '../../core/contracts/working-set.valibot.ts';
export { ProjectConfigSchema, type ProjectConfig } from '../../core/contracts/project-config.valibot.ts';
export {
  QuotaStateSchema, TaskUsageSchema, UsageReportSchema, type QuotaState, type TaskUsage, type UsageReport, type UsageRow, type UsageTotals,
} from '../../core/contracts/usage.valibot.ts';
