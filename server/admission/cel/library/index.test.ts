import { kubernetesLibraries, mutationLibraries } from './index.js';

const functionNames = (libs: typeof kubernetesLibraries): Set<string> => new Set(libs.flatMap((l) => (l.functions ?? []).map((f) => f.name)));

/** format.go's ConstantFormats (`format.dns1123Label()`, …): declared by CompileOptions, not by declarations(). */
const isConstantFormat = (name: string, args: number): boolean => name.startsWith('format.') && name !== 'format.named' && args === 0;

const kubernetesOwn = kubernetesLibraries.filter((l) => l.name.startsWith('kubernetes.'));
const celGoExtensions = kubernetesLibraries.filter((l) => !l.name.startsWith('kubernetes.'));

describe("the libraries of kube 1.36's base environment", () => {
  // k8s.io/apiserver/pkg/cel/library/library_compatibility_test.go TestLibraryCompatibility: every function of the
  // Kubernetes libraries, assigned to the release that introduced it (jsonpatch.escapeKey is the mutation library's)
  it('declare exactly the functions kube tracks by release (TestLibraryCompatibility)', () => {
    const known = new Set([
      // Kubernetes 1.24:
      ...['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf', 'find', 'findAll', 'url', 'getScheme', 'getHost', 'getHostname'],
      ...['getPort', 'getEscapedPath', 'getQuery', 'isURL'],
      // Kubernetes <1.27>:
      ...['path', 'group', 'serviceAccount', 'resource', 'subresource', 'namespace', 'name', 'check', 'allowed', 'reason'],
      // Kubernetes <1.28>:
      ...['errored', 'error'],
      // Kubernetes <1.29>:
      ...['add', 'asApproximateFloat', 'asInteger', 'compareTo', 'isGreaterThan', 'isInteger', 'isLessThan', 'isQuantity', 'quantity', 'sign', 'sub'],
      // Kubernetes <1.30>:
      ...['ip', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'ip.isCanonical', 'isIP'],
      ...['cidr', 'containsIP', 'containsCIDR', 'masked', 'prefixLength', 'isCIDR', 'string'],
      // Kubernetes <1.31>:
      ...['fieldSelector', 'labelSelector', 'validate', 'format.named', 'isSemver', 'major', 'minor', 'patch', 'semver'],
      // Kubernetes <1.32>:
      'jsonpatch.escapeKey',
    ]);
    const declared = new Set(
      [...kubernetesOwn, ...mutationLibraries].flatMap((l) => (l.functions ?? []).filter((f) => !isConstantFormat(f.name, f.args.length)).map((f) => f.name)),
    );
    expect([...declared].filter((n) => !known.has(n)).sort()).toEqual([]);
    expect([...known].filter((n) => !declared.has(n)).sort()).toEqual([]);
  });

  // TestKnownLibraries: the base environment's non-core libraries are kube's KnownLibraries, by their names
  it('are named as kube names them', () => {
    expect(kubernetesOwn.map((l) => l.name).sort()).toEqual(
      [
        'kubernetes.authz',
        'kubernetes.authzSelectors',
        'kubernetes.format',
        'kubernetes.lists',
        'kubernetes.net.cidr',
        'kubernetes.net.ip',
        'kubernetes.quantity',
        'kubernetes.regex',
        'kubernetes.Semver',
        'kubernetes.urls',
      ].sort(),
    );
    expect(mutationLibraries.map((l) => l.name)).toEqual(['kubernetes.jsonpatch']);
  });

  // environment/base.go: ext.Strings(version 2), ext.Sets(), ext.Lists(version 3); no math, encoders, bindings
  it("add cel-go's strings (v2), sets and lists (v3) extensions and no other", () => {
    expect(celGoExtensions.map((l) => l.name).sort()).toEqual(['cel.lib.ext.lists', 'cel.lib.ext.sets', 'cel.lib.ext.strings']);
    const strings = ['charAt', 'indexOf', 'lastIndexOf', 'lowerAscii', 'replace', 'split', 'substring', 'trim', 'upperAscii', 'format', 'strings.quote', 'join'];
    const sets = ['sets.contains', 'sets.equivalent', 'sets.intersects'];
    const lists = ['slice', 'flatten', 'sort', '@sortByAssociatedKeys', 'lists.range', 'reverse', 'distinct'];
    expect([...functionNames(celGoExtensions)].sort()).toEqual([...strings, ...sets, ...lists].sort());
    expect(celGoExtensions.flatMap((l) => l.macros ?? [])).toEqual(['sortBy']);
    // strings version 3's string reverse is not there: `reverse` is only the list overload
    const reverse = celGoExtensions.flatMap((l) => l.functions ?? []).filter((f) => f.name === 'reverse');
    expect(reverse.map((f) => f.id)).toEqual(['list_reverse']);
  });
});
