// The names controller's decision (apiextensions-apiserver's controller/status/naming_controller.go), as a
// pure function: which requested names are accepted, given the names the other CRDs of the same group have
// accepted, with NamesAccepted and the initial Established condition.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from '../../api/apiextensions.js';
import { findCondition } from '../conditions.js';

export interface NamingDecision {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: CustomResourceDefinitionCondition;
  established: CustomResourceDefinitionCondition;
}

/** getAcceptedNamesForGroup: resource names (plural, singular, short names) and kinds the other CRDs of the group hold. */
function namesInGroup(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of all) {
    if (other.metadata?.name === crd.metadata?.name || other.spec?.group !== crd.spec.group) continue;
    const n = other.status?.acceptedNames;
    if (!n) continue;
    for (const r of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  return { resources, kinds };
}

/** equalToAcceptedOrFresh: a name is fine if it is already ours or nobody else holds it. */
function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (!requested || requested === accepted) return undefined;
  return used.has(requested) ? `"${requested}" is already in use` : undefined;
}

export function decideNames(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): NamingDecision {
  const requested = crd.spec.names;
  const accepted: Partial<CustomResourceDefinitionNames> = crd.status?.acceptedNames ?? {};
  const next: CustomResourceDefinitionNames = { plural: '', kind: '', ...accepted } as CustomResourceDefinitionNames;
  const { resources, kinds } = namesInGroup(crd, all);
  let reason: string | undefined;
  let message = '';
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, why: string): void => {
    const err = conflict(requested[field], accepted[field], used);
    if (err) {
      reason = why;
      message = err;
    } else if (requested[field] !== undefined) next[field] = requested[field]!;
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  const shortNames = requested.shortNames ?? [];
  const acceptedShort = new Set(accepted.shortNames ?? []);
  const shortConflict = shortNames.map((s) => (acceptedShort.has(s) ? undefined : conflict(s, undefined, resources))).find((e) => e !== undefined);
  if (shortConflict) {
    reason = 'ShortNamesConflict';
    message = shortConflict;
  } else if (requested.shortNames !== undefined) next.shortNames = [...shortNames];
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  // categories are always accepted
  if (requested.categories !== undefined) next.categories = [...requested.categories];
  else delete next.categories;
  if (requested.shortNames === undefined && !shortConflict) delete next.shortNames;

  const namesAccepted: CustomResourceDefinitionCondition = reason
    ? { type: 'NamesAccepted', status: 'False', reason, message }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  // Established starts False; the establishing controller turns it True once the names are accepted.
  let established: CustomResourceDefinitionCondition = findCondition(crd, 'Established') ?? {
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: next, namesAccepted, established };
}
