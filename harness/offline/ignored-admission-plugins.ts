// Entries of an AdmissionConfiguration's `plugins` that kube-apiserver reads past without a word: it looks each
// enabled plugin's configuration up by name (k8s.io/apiserver/pkg/admission/config.go configProvider.ConfigFor,
// the first entry with that name), so a misspelled name, a second entry for a plugin and the entry of a disabled
// plugin are never read. A webhook author who misspells "ValidatingAdmissionWebhook" silently loses its
// staticManifestsDir. `kah validate` says so, as warnings marked as going beyond kube-apiserver.
import { allOrderedAdmissionPlugins } from '../../server/options/admission-plugins.js';
import { goQuote } from '../../server/options/go-strconv.js';

/** The marker of a warning kube-apiserver would not give. */
export const beyondKubePrefix = 'Warning (beyond kube-apiserver, which ignores this silently)';

/** Levenshtein distance, for the "did you mean" of a misspelled plugin name. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** The registered plugin a misspelled name most likely meant: same letters in another case, or a few edits away. */
export function closestPluginName(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: { plugin: string; distance: number } | undefined;
  for (const plugin of allOrderedAdmissionPlugins) {
    const distance = plugin.toLowerCase() === lower ? 0 : editDistance(lower, plugin.toLowerCase());
    if (!best || distance < best.distance) best = { plugin, distance };
  }
  // A third of the name's length at most: "Foo" is not a misspelling of "AlwaysAdmit".
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.plugin : undefined;
}

/**
 * One message per ignored entry, with its index in `plugins` (without the beyond-kube marker, which the caller
 * prints). `enabledPlugins` is the effective plugin list (--enable/--disable-admission-plugins applied).
 */
export function ignoredAdmissionPluginEntries(entryNames: readonly string[], enabledPlugins: readonly string[]): string[] {
  const registered = new Set<string>(allOrderedAdmissionPlugins);
  const enabled = new Set(enabledPlugins);
  const firstIndex = new Map<string, number>();
  const out: string[] = [];
  entryNames.forEach((name, i) => {
    const at = `plugins[${i}]`;
    if (name === '') {
      out.push(`${at}: an entry without a name is ignored`);
      return;
    }
    const first = firstIndex.get(name);
    if (first !== undefined) {
      out.push(`${at}.name: ${goQuote(name)} is configured again: only the first entry, plugins[${first}], is read and this one is ignored`);
      return;
    }
    firstIndex.set(name, i);
    if (!registered.has(name)) {
      const guess = closestPluginName(name);
      out.push(`${at}.name: ${goQuote(name)} is not an admission plugin: its configuration is ignored${guess ? ` (did you mean ${goQuote(guess)}?)` : ''}`);
      return;
    }
    if (!enabled.has(name)) out.push(`${at}.name: ${goQuote(name)} is not enabled (--enable-admission-plugins, --disable-admission-plugins): its configuration is ignored`);
  });
  return out;
}
