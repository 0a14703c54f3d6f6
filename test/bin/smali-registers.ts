// Static checks of Dalvik code standing in for the device's verifier and linker, which nobody here
// can run. baksmali's register analysis (`-r ARGS`: before each instruction, the inferred type of
// every register it uses) is read back and every instruction checked: none reads an unset or
// conflicting register or a merge of unrelated classes, a return returns the method's type, a field
// store puts the field's type, each invoke passes what its method reference declares (or a known
// subtype). And every reference into our own classes names a declared field or method, invoked the
// right way. A problem found here is a VerifyError or a linkage error on the phone: the launcher
// would not start at all.

/** Subtypes the analysis cannot know without the framework's classes (it runs with none). */
const SUPERTYPES: Record<string, string[]> = {
  'Lpetal/dispatch/twa/LauncherActivity;': ['Landroid/app/Activity;', 'Landroid/content/Context;', 'Landroid/content/ServiceConnection;'],
  'Landroid/os/Binder;': ['Landroid/os/IBinder;'],
};
const INT_LIKE = new Set(['Null', 'One', 'Boolean', 'PosByte', 'Byte', 'PosShort', 'Short', 'Char', 'Integer']);
/** Opcodes whose first register is written, not read. */
const WRITES_FIRST = /^(const|move|new-instance|new-array|iget|sget|aget|instance-of|array-length)/;

/** The parameter types of a method descriptor like (ILandroid/os/Parcel;Z)V. */
function params(descriptor: string): string[] {
  return [...descriptor.slice(1, descriptor.indexOf(')')).matchAll(/\[*(L[^;]+;|[ZBSCIJFD])/g)].map((m) => m[0]);
}

function fits(type: string, wanted: string): boolean {
  // A boolean takes only booleans and the constants 0 and 1; an int any int-like value.
  if (wanted === 'Z') return ['Null', 'One', 'Boolean'].includes(type);
  if (wanted.length === 1) return wanted === 'I' ? INT_LIKE.has(type) : false;
  if (type === 'Null') return true;
  const ref = /^Reference,(.+)$/.exec(type)?.[1];
  return ref !== undefined && (ref === wanted || wanted === 'Ljava/lang/Object;' || (SUPERTYPES[ref] ?? []).includes(wanted));
}

/** Every violation in baksmali `-r ARGS` output of one class, as "method: instruction — why". */
export function registerProblems(smali: string): string[] {
  const problems: string[] = [];
  let method = '';
  let returns = '';
  let types = new Map<string, string>();
  for (const raw of smali.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('.method')) {
      method = line.split(' ').at(-1)!;
      returns = method.slice(method.indexOf(')') + 1);
      continue;
    }
    if (line.startsWith('#') && line.includes('=(')) {
      types = new Map([...line.slice(1).matchAll(/([vp]\d+)=\(([^)]*)\)/g)].map((m) => [m[1]!, m[2]!]));
      continue;
    }
    if (!line || /^[.:#]/.test(line)) continue;
    const [op, ...rest] = line.split(/\s+/);
    const operands = rest.join(' ');
    const regs = [...(operands.split(/, L|, "/)[0] ?? '').matchAll(/\b[vp]\d+\b/g)].map((m) => m[0]);
    const reads = WRITES_FIRST.test(op!) ? regs.slice(1) : regs;
    const fail = (why: string) => problems.push(`${method}: ${line} — ${why}`);
    const known = types;
    types = new Map(); // each instruction with registers has its own comment
    for (const r of reads) {
      const t = known.get(r);
      if (t === undefined || /^(Uninit|Conflicted|Unknown)$/.test(t) || t.includes('Ujava/lang/Object;')) fail(`reads ${r} as ${t ?? 'nothing known'}`);
    }
    if ((op === 'return-object' || op === 'return') && !fits(known.get(regs[0]!) ?? '', returns)) fail(`returns ${known.get(regs[0]!)} from a method returning ${returns}`);
    const field = /^[is]put/.test(op!) ? /(L[^;]+;)->[^:]+:(\S+)$/.exec(operands) : null;
    if (field) {
      if (!fits(known.get(regs[0]!) ?? '', field[2]!)) fail(`stores ${regs[0]} (${known.get(regs[0]!)}) in a ${field[2]} field`);
      if (op!.startsWith('iput') && !fits(known.get(regs[1]!) ?? '', field[1]!)) fail(`stores into ${regs[1]} (${known.get(regs[1]!)}), not a ${field[1]}`);
    }
    if (op!.startsWith('invoke-')) {
      const ref = /(L[^;]+;)->[^(]+(\([^)]*\)\S+)$/.exec(operands);
      if (!ref) continue;
      const wanted = [...(op!.startsWith('invoke-static') ? [] : [ref[1]!]), ...params(ref[2]!)];
      if (wanted.some((w) => w === 'J' || w === 'D')) fail('takes a wide argument, which this check does not pair');
      else if (wanted.length !== regs.length) fail(`passes ${regs.length} registers for ${wanted.length} arguments`);
      else wanted.forEach((w, i) => {
        const t = known.get(regs[i]!) ?? '';
        // A constructor's receiver is the uninitialised object itself.
        if (i === 0 && ref[2] && operands.includes('-><init>(') && (t === `UninitRef,${w}` || t.startsWith('UninitThis,'))) return;
        if (!fits(t, w)) fail(`passes ${regs[i]} (${t}) as ${w}`);
      });
    }
  }
  return problems;
}

/**
 * References into our own classes that would fail to link on the phone (NoSuchFieldError,
 * NoSuchMethodError, IncompatibleClassChangeError): a field or method that is not declared, or an
 * invoke of the wrong kind (invoke-static of an instance method, invoke-direct of a public one…).
 */
export function ownReferenceProblems(classes: Record<string, string>, pkg = 'Lpetal/dispatch/twa/'): string[] {
  const declared = new Map<string, string>(); // "Lcls;->name:T" or "Lcls;->name(…)R" → its flags
  for (const smali of Object.values(classes)) {
    const cls = /^\.class .*?(L\S+;)$/m.exec(smali)![1]!;
    for (const m of smali.matchAll(/^\.field ([\w ]*?)(\S+):(\S+)$/gm)) declared.set(`${cls}->${m[2]}:${m[3]}`, m[1]!);
    for (const m of smali.matchAll(/^\.method ([\w ]*?)(\S+\(.*)$/gm)) declared.set(`${cls}->${m[2]}`, m[1]!);
  }
  const problems: string[] = [];
  for (const smali of Object.values(classes)) {
    for (const m of smali.matchAll(new RegExp(`^\\s+(\\S+) .*?(${pkg.replace(/\//g, '\\/')}\\w+;->\\S+)$`, 'gm'))) {
      const [op, ref] = [m[1]!, m[2]!];
      const flags = declared.get(ref);
      if (flags === undefined) problems.push(`${op} ${ref}: not declared`);
      else if (op.startsWith('invoke-static') !== flags.includes('static')) problems.push(`${op} ${ref}: the method is ${flags}`);
      else if (op.startsWith('invoke-direct') && !/private|constructor/.test(flags)) problems.push(`${op} ${ref}: invoke-direct of a ${flags} method`);
    }
  }
  return problems;
}
