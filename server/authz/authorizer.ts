// The authorizer kube-apiserver builds from --authorization-mode (pkg/kubeapiserver/authorizer): the
// system:masters authorizer first, then each mode in order; the first Allow or Deny decides, NoOpinion
// falls through, and the NoOpinion reasons are joined for the 403.
import type { UserInfo } from '../api/types.js';
import { systemPrivilegedGroup } from '../authn/types.js';
import { AbacAuthorizer, loadAbacPolicyFile, type AbacPolicy } from './abac.js';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, PrivilegedGroupsAuthorizer } from './builtin.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RuleResolver, RulesResult } from './types.js';

export type AuthorizationModeName = 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'Node' | 'RBAC';

export interface AuthorizerConfig {
  modes: readonly AuthorizationModeName[];
  /** the parsed --authorization-policy-file; required with ABAC */
  abacPolicies?: readonly AbacPolicy[];
}

const decidesNothing: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'NoOpinion', reason: '' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** authorizerfactory's union authorizer. */
export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const reasons: string[] = [];
    const evalErrors: string[] = [];
    for (const a of this.authorizers) {
      const d = a.authorize(attrs);
      if (d.evaluationError) evalErrors.push(d.evaluationError);
      if (d.reason) reasons.push(d.reason);
      if (d.decision !== 'NoOpinion') return d;
    }
    const out: AuthorizationDecision = { decision: 'NoOpinion', reason: reasons.join('\n') };
    if (evalErrors.length) out.evaluationError = evalErrors.length === 1 ? evalErrors[0]! : `[${evalErrors.join(', ')}]`;
    return out;
  }
}

/** The union rule resolver: every mode's rules, concatenated. */
export class UnionRuleResolver implements RuleResolver {
  constructor(private readonly resolvers: readonly RuleResolver[]) {}

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errs: string[] = [];
    for (const r of this.resolvers) {
      const res = r.rulesFor(user, namespace);
      out.resourceRules.push(...res.resourceRules);
      out.nonResourceRules.push(...res.nonResourceRules);
      if (res.incomplete) out.incomplete = true;
      if (res.evaluationError) errs.push(res.evaluationError);
    }
    if (errs.length) out.evaluationError = errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
    return out;
  }
}

export interface BuiltAuthorizer extends Authorizer, RuleResolver {
  readonly modes: readonly AuthorizationModeName[];
}

export function buildAuthorizer(cfg: AuthorizerConfig): BuiltAuthorizer {
  const privileged = new PrivilegedGroupsAuthorizer([systemPrivilegedGroup]);
  const modeAuthorizers: Array<Authorizer & RuleResolver> = cfg.modes.map((mode) => {
    switch (mode) {
      case 'AlwaysAllow':
        return new AlwaysAllowAuthorizer();
      case 'AlwaysDeny':
        return new AlwaysDenyAuthorizer();
      case 'ABAC':
        if (!cfg.abacPolicies) throw new Error('authorization mode ABAC needs the parsed policy file');
        return new AbacAuthorizer(cfg.abacPolicies);
      case 'Node':
      case 'RBAC':
        // Accepted so that envtest's --authorization-mode=RBAC starts; they decide nothing until the RBAC
        // authorizer (issue #17, branch s21-rbac) replaces this case: system:masters is still allowed everything.
        return decidesNothing;
    }
  });
  const union = new UnionAuthorizer([privileged, ...modeAuthorizers]);
  const rules = new UnionRuleResolver(modeAuthorizers);
  const allowAll = new AlwaysAllowAuthorizer();
  return Object.freeze({
    modes: Object.freeze([...cfg.modes]),
    authorize: (attrs: AuthorizationAttributes) => union.authorize(attrs),
    // kube's privileged-group authorizer lists no rules; clusters show system:masters everything through the
    // cluster-admin RBAC binding, and so does this server, since those requests are all allowed.
    rulesFor: (user: UserInfo, namespace: string) => (privileged.isPrivileged(user) ? allowAll.rulesFor() : rules.rulesFor(user, namespace)),
  });
}

export interface AuthorizerFiles {
  modes: readonly AuthorizationModeName[];
  /** --authorization-policy-file, read and parsed here when ABAC is among the modes */
  policyFile?: string | undefined;
}

export type LoadAuthorizerResult = { ok: true; authorizer: BuiltAuthorizer; warnings: string[] } | { ok: false; errors: string[] };

/** Startup edge: reads the ABAC policy file when needed and builds the authorizer; problems are error values. */
export async function loadAuthorizer(cfg: AuthorizerFiles): Promise<LoadAuthorizerResult> {
  if (!cfg.modes.includes('ABAC')) return { ok: true, authorizer: buildAuthorizer({ modes: cfg.modes }), warnings: [] };
  // Options validation reports this first; kept so that a direct caller gets kube's text too.
  if (!cfg.policyFile) return { ok: false, errors: ["authorization-mode ABAC's authorization policy file not passed"] };
  const file = await loadAbacPolicyFile(cfg.policyFile);
  if (!file.ok) return { ok: false, errors: [file.error] };
  return { ok: true, authorizer: buildAuthorizer({ modes: cfg.modes, abacPolicies: file.policies }), warnings: file.warnings };
}
