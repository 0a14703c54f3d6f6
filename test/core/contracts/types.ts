// Compile-time half of the contract checks: for every wire shape, the server's zod output type and
// the client's valibot output type are the same type. `npm run typecheck` fails when they drift.
import type * as v from 'valibot';
import type { z } from 'zod';
import type * as Sc from '../../../core/contracts/common.ts';
import type * as Cc from '../../../core/contracts/common.valibot.ts';
import type * as Sd from '../../../core/contracts/diagnostics.ts';
import type * as Cd from '../../../core/contracts/diagnostics.valibot.ts';
import type * as Se from '../../../core/contracts/event.ts';
import type * as Ce from '../../../core/contracts/event.valibot.ts';
import type * as Sf from '../../../core/contracts/focus.ts';
import type * as Cf from '../../../core/contracts/focus.valibot.ts';
import type * as Sm from '../../../core/contracts/message.ts';
import type * as Cm from '../../../core/contracts/message.valibot.ts';
import type * as Sn from '../../../core/contracts/needs-you.ts';
import type * as Cn from '../../../core/contracts/needs-you.valibot.ts';
import type * as Sp from '../../../core/contracts/project.ts';
import type * as Cp from '../../../core/contracts/project.valibot.ts';
import type * as Spc from '../../../core/contracts/project-config.ts';
import type * as Cpc from '../../../core/contracts/project-config.valibot.ts';
import type * as Ss from '../../../core/contracts/session.ts';
import type * as Cs from '../../../core/contracts/session.valibot.ts';
import type * as Sst from '../../../core/contracts/state.ts';
import type * as Cst from '../../../core/contracts/state.valibot.ts';
import type * as Sstat from '../../../core/contracts/status.ts';
import type * as Cstat from '../../../core/contracts/status.valibot.ts';
import type * as Ssch from '../../../core/contracts/schedule.ts';
import type * as Csch from '../../../core/contracts/schedule.valibot.ts';
import type * as St from '../../../core/contracts/task.ts';
import type * as Ct from '../../../core/contracts/task.valibot.ts';
import type * as Str from '../../../core/contracts/trellis.ts';
import type * as Ctr from '../../../core/contracts/trellis.valibot.ts';
import type * as Su from '../../../core/contracts/usage.ts';
import type * as Cu from '../../../core/contracts/usage.valibot.ts';
import type * as Sw from '../../../core/contracts/working-set.ts';
import type * as Cw from '../../../core/contracts/working-set.valibot.ts';
import type * as Sws from '../../../core/contracts/workspace.ts';
import type * as Cws from '../../../core/contracts/workspace.valibot.ts';

/** True only when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Mutual assignability, for shapes with index signatures (zod and valibot spell those differently). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

type Z<S extends z.ZodType> = z.output<S>;
type V<S extends v.GenericSchema> = v.InferOutput<S>;

export type ContractTypesAgree = [
  Check<Equal<Z<typeof Sc.ErrorBody>, V<typeof Cc.ErrorBody>>>,
  Check<Equal<Z<typeof Se.EventSummarySchema>, V<typeof Ce.EventSummarySchema>>>,
  Check<Equal<Z<typeof Se.EventSchema>, V<typeof Ce.EventSchema>>>,
  Check<Equal<Z<typeof Sf.FocusSchema>, V<typeof Cf.FocusSchema>>>,
  Check<Equal<Z<typeof Sd.HealthDailySchema>, V<typeof Cd.HealthDailySchema>>>,
  Check<Equal<Z<typeof Sm.MessageSchema>, V<typeof Cm.MessageSchema>>>,
  Check<Equal<Z<typeof Sn.NeedsYouItemSchema>, V<typeof Cn.NeedsYouItemSchema>>>,
  Check<Equal<Z<typeof Sn.NeedsYouListSchema>, V<typeof Cn.NeedsYouListSchema>>>,
  Check<Same<Z<typeof Spc.ProjectConfigSchema>, V<typeof Cpc.ProjectConfigSchema>>>,
  Check<Same<Z<typeof Sp.ProjectSchema>, V<typeof Cp.ProjectSchema>>>,
  Check<Equal<Z<typeof Ss.SessionSchema>, V<typeof Cs.SessionSchema>>>,
  Check<Equal<Z<typeof Sstat.StatusRowSchema>, V<typeof Cstat.StatusRowSchema>>>,
  Check<Equal<Z<typeof Ssch.ScheduleSchema>, V<typeof Csch.ScheduleSchema>>>,
  Check<Equal<Z<typeof Ssch.ScheduleListSchema>, V<typeof Csch.ScheduleListSchema>>>,
  Check<Equal<Z<typeof St.TaskSchema>, V<typeof Ct.TaskSchema>>>,
  Check<Equal<Z<typeof St.TaskDetailSchema>, V<typeof Ct.TaskDetailSchema>>>,
  Check<Same<Z<typeof Str.TrellisViewSchema>, V<typeof Ctr.TrellisViewSchema>>>,
  Check<Equal<Z<typeof Su.UsageSchema>, V<typeof Cu.UsageSchema>>>,
  Check<Equal<Z<typeof Su.UsageReportSchema>, V<typeof Cu.UsageReportSchema>>>,
  Check<Equal<Z<typeof Su.TaskUsageSchema>, V<typeof Cu.TaskUsageSchema>>>,
  Check<Equal<Z<typeof Su.BudgetStateSchema>, V<typeof Cu.BudgetStateSchema>>>,
  Check<Equal<Z<typeof Su.QuotaStateSchema>, V<typeof Cu.QuotaStateSchema>>>,
  Check<Same<Z<typeof Sw.WorkingSetSchema>, V<typeof Cw.WorkingSetSchema>>>,
  Check<Same<Z<typeof Sst.StateSchema>, V<typeof Cst.StateSchema>>>,
  Check<Equal<Z<typeof Sws.ChangeSchema>, V<typeof Cws.ChangeSchema>>>,
  Check<Equal<Z<typeof Sws.WorkspaceSchema>, V<typeof Cws.WorkspaceSchema>>>,
  Check<Equal<Z<typeof Sws.WorkspaceListSchema>, V<typeof Cws.WorkspaceListSchema>>>,
  Check<Equal<Z<typeof Sws.DecisionSchema>, V<typeof Cws.DecisionSchema>>>,
];
