// Generates the protobuf descriptor of kube's built-in types that server/http/protobuf reads: one compact
// description of every message of the GA API groups (k8s.io/api), apiextensions.k8s.io/v1 and the apimachinery
// packages they use, with, for each field, its number, proto type and label (from generated.proto) and how Go's
// encoding/json writes it (from the Go struct's json tag and type in types.go). Also the kinds each group version
// registers (register.go), which say which message an envelope's apiVersion/kind names.
//
// Run by hand when moving to a new kube release; the output is committed:
//   node scripts/gen-protobuf-descriptor.mjs \
//     --api /path/to/kubernetes/api[@ref] \
//     --apimachinery /path/to/kubernetes/apimachinery[@ref] \
//     --apiextensions /path/to/kubernetes/apiextensions-apiserver[@ref]
// Each path is a checkout, or a git directory (bare mirror) with @ref naming the tag to read (v0.36.3 is kube 1.36.3).
// --versions <regex> picks the k8s.io/api versions (default ^v\d+$: the GA ones; ^v\d+(beta\d+)?$ adds the betas).
// Output: server/http/protobuf/schema/kube-types.generated.ts (the messages, loaded on the first protobuf body) and
// server/http/protobuf/schema/kube-kinds.generated.ts (group versions and kinds: small, read on every negotiation).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'server', 'http', 'protobuf', 'schema');

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(api|apimachinery|apiextensions|versions)$/.exec(argv[i]);
    if (!m || i + 1 >= argv.length) throw new Error(`usage: --api <dir[@ref]> --apimachinery <dir[@ref]> --apiextensions <dir[@ref]> [--versions <regex>] (bad argument ${argv[i]})`);
    out[m[1]] = argv[++i];
  }
  for (const k of ['api', 'apimachinery', 'apiextensions']) if (!out[k]) throw new Error(`missing --${k}`);
  return out;
}

/** Files of one repository, from a checkout or from a git directory at a ref. */
function source(spec) {
  const at = spec.lastIndexOf('@');
  const dir = at > 0 ? spec.slice(0, at) : spec;
  const ref = at > 0 ? spec.slice(at + 1) : undefined;
  const isGitDir = existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'));
  if (isGitDir) {
    const rev = ref ?? 'HEAD';
    const git = (...args) => execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const all = git('ls-tree', '-r', '--name-only', rev).split('\n').filter(Boolean);
    return { name: `${dir}@${rev}`, files: all, read: (p) => git('show', `${rev}:${p}`) };
  }
  if (ref) throw new Error(`${spec}: @ref needs a git directory`);
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(path.join(dir, d))) {
      if (e === '.git' || e === 'vendor' || e === 'node_modules') continue;
      const rel = d ? `${d}/${e}` : e;
      if (statSync(path.join(dir, rel)).isDirectory()) walk(rel);
      else files.push(rel);
    }
  };
  walk('');
  return { name: dir, files, read: (p) => readFileSync(path.join(dir, p), 'utf8') };
}

// ---- generated.proto ----

/** Messages of one generated.proto: name → fields {name, number, type, label}. go-to-protobuf writes no nesting, enums or oneofs. */
function parseProto(text, where) {
  const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1];
  if (!pkg) throw new Error(`${where}: no package`);
  const body = text.replace(/\/\/[^\n]*/g, '');
  const messages = new Map();
  const re = /message\s+(\w+)\s*\{([^}]*)\}/g;
  for (let m; (m = re.exec(body)); ) {
    const fields = [];
    for (const line of m[2].split(';').map((s) => s.trim()).filter(Boolean)) {
      let f = /^(optional|repeated|required)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)$/.exec(line);
      if (f) {
        fields.push({ name: f[3], number: Number(f[4]), type: f[2], label: f[1] === 'repeated' ? 'repeated' : '' });
        continue;
      }
      f = /^map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)$/.exec(line);
      if (f) {
        if (f[1] !== 'string') throw new Error(`${where}: ${m[1]}.${f[3]}: map key ${f[1]} is not string`);
        fields.push({ name: f[3], number: Number(f[4]), type: f[2], label: 'map' });
        continue;
      }
      throw new Error(`${where}: message ${m[1]}: cannot read "${line}"`);
    }
    messages.set(m[1], fields);
  }
  return { pkg, messages };
}

// ---- Go types ----

/**
 * The Go structs of a package, by name: for each field with a protobuf tag, the proto field name it encodes as,
 * its JSON name and omitempty, whether it is inline or a pointer, and its Go type; plus the names of types
 * declared as slices (`type Verbs []string`), whose message wraps `repeated items` but whose JSON is the array.
 */
function parseGo(files) {
  const structs = new Map();
  const sliceTypes = new Set();
  for (const text of files) {
    for (const m of text.matchAll(/^type\s+(\w+)\s+\[\]/gm)) sliceTypes.add(m[1]);
    const re = /^type\s+(\w+)\s+struct\s*\{\n([\s\S]*?)^\}/gm;
    for (let m; (m = re.exec(text)); ) {
      const fields = new Map();
      for (const raw of m[2].split('\n')) {
        const line = raw.replace(/^\s+/, '');
        if (line.startsWith('//')) continue;
        const tagAt = line.indexOf('`');
        if (tagAt < 0) continue;
        const tags = line.slice(tagAt + 1, line.lastIndexOf('`'));
        const proto = /protobuf:"([^"]*)"/.exec(tags)?.[1];
        if (!proto) continue;
        const decl = line.slice(0, tagAt).trim().split(/\s+/);
        // `Name Type` or an embedded `Type`
        const goName = decl.length >= 2 ? decl[0] : decl[0].replace(/^\*/, '').split('.').pop();
        const goType = decl.length >= 2 ? decl.slice(1).join(' ') : decl[0];
        const parts = proto.split(',');
        const protoName = parts.find((p) => p.startsWith('name='))?.slice(5);
        const number = Number(parts[1]);
        const json = /json:"([^"]*)"/.exec(tags)?.[1];
        const jsonParts = json === undefined ? [] : json.split(',');
        const jsonName = json === undefined ? undefined : jsonParts[0];
        fields.set(protoName, {
          goName,
          goType,
          number,
          jsonName: jsonName === '' ? undefined : jsonName,
          omitempty: jsonParts.includes('omitempty'),
          inline: jsonParts.includes('inline') || (decl.length === 1 && jsonName === ''),
          skip: jsonName === '-',
          pointer: goType.startsWith('*'),
        });
      }
      structs.set(m[1], fields);
    }
  }
  return { structs, sliceTypes };
}

// ---- register.go ----

function parseRegister(text, where) {
  const group = /const\s+GroupName\s*=\s*"([^"]*)"/.exec(text)?.[1];
  const version = /SchemeGroupVersion\s*=\s*schema\.GroupVersion\{Group:\s*GroupName,\s*Version:\s*"([^"]+)"\}/.exec(text)?.[1];
  if (group === undefined || !version) throw new Error(`${where}: cannot find GroupName and SchemeGroupVersion`);
  const body = /func addKnownTypes\([^)]*\)\s*error\s*\{([\s\S]*?)\n\}/.exec(text)?.[1] ?? '';
  const kinds = [...body.matchAll(/&(\w+)\{\}/g)].map((k) => k[1]).filter((k) => !k.startsWith('metav1'));
  return { group, version, kinds: [...new Set(kinds)] };
}

// ---- the packages ----

const args = parseArgs(process.argv.slice(2));
const api = source(args.api);
const machinery = source(args.apimachinery);
const extensions = source(args.apiextensions);

/** Packages to read: [repository, directory, has register.go kinds]. */
const packageDirs = [];
// Every GA group version of k8s.io/api (v1, v2: no alpha or beta) unless --versions says otherwise.
const versions = new RegExp(args.versions ?? '^v\\d+$');
for (const f of api.files) {
  const m = /^([a-z]+)\/(\w+)\/generated\.proto$/.exec(f);
  if (m && versions.test(m[2])) packageDirs.push([api, `${m[1]}/${m[2]}`, true]);
}
for (const d of ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/runtime/schema', 'pkg/util/intstr', 'pkg/api/resource']) packageDirs.push([machinery, d, false]);
packageDirs.push([extensions, 'pkg/apis/apiextensions/v1', true]);

const messages = {}; // full name → fields
const wrappers = []; // full names of messages whose Go type is a slice
const groupVersions = {}; // "apps/v1" → { kind: message full name }
const problems = [];

for (const [repo, dir, registers] of packageDirs) {
  const where = `${repo.name}:${dir}`;
  const { pkg, messages: protoMessages } = parseProto(repo.read(`${dir}/generated.proto`), where);
  const goFiles = repo.files.filter((f) => f.startsWith(`${dir}/`) && !f.slice(dir.length + 1).includes('/') && f.endsWith('.go') && !f.endsWith('_test.go'));
  const { structs, sliceTypes } = parseGo(goFiles.map((f) => repo.read(f)));
  for (const [name, fields] of protoMessages) {
    const full = `${pkg}.${name}`;
    const go = structs.get(name);
    if (sliceTypes.has(name)) {
      if (fields.length !== 1 || fields[0].name !== 'items' || fields[0].label !== 'repeated') problems.push(`${full}: slice type whose message is not {repeated items = 1}`);
      wrappers.push(full);
    }
    messages[full] = fields.map((f) => {
      const g = go?.get(f.name);
      if (g && g.number !== f.number) problems.push(`${full}.${f.name}: proto number ${f.number}, Go tag ${g.number}`);
      // How encoding/json writes the field (see descriptor.ts for the codes). Messages without a Go struct here
      // (Time, Quantity, …) have their own JSON form, written by the codec, so their fields' rules do not matter.
      let rule;
      if (!g) rule = 'o';
      else if (g.skip) rule = 'x';
      else if (g.inline) rule = 'i';
      else if (g.pointer) rule = g.omitempty ? 'p' : 'P';
      else rule = g.omitempty ? 'o' : 'r';
      const jsonName = g?.jsonName ?? f.name;
      const entry = [f.name, f.number, f.type, f.label === 'repeated' ? 'r' : f.label === 'map' ? 'm' : '', rule];
      if (jsonName !== f.name) entry.push(jsonName);
      return entry;
    });
  }
  if (registers) {
    const reg = parseRegister(repo.read(`${dir}/register.go`), where);
    const gv = reg.group ? `${reg.group}/${reg.version}` : reg.version;
    const kinds = {};
    for (const k of reg.kinds) {
      if (protoMessages.has(k)) kinds[k] = `${pkg}.${k}`;
      // kinds without a message (a few internal ones) cannot be sent as protobuf in kube either
    }
    groupVersions[gv] = kinds;
  }
}

// Every type a field names must be generated.
const scalars = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);
for (const [full, fields] of Object.entries(messages)) {
  const pkg = full.slice(0, full.lastIndexOf('.'));
  for (const [name, , type] of fields) {
    if (scalars.has(type)) continue;
    const target = type.startsWith('.') ? type.slice(1) : `${pkg}.${type}`;
    if (!messages[target]) problems.push(`${full}.${name}: type ${type} is not generated`);
  }
}
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
// metav1.AddToGroupVersion (apimachinery pkg/apis/meta/v1/register.go) registers these in every group version;
// Status and the discovery types are "unversioned", registered as v1 only.
const everyGroupVersion = Object.fromEntries(['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'].map((k) => [k, `${meta}.${k}`]));
const unversioned = Object.fromEntries(['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'].map((k) => [k, `${meta}.${k}`]));
// meta.k8s.io/v1 (AddMetaToScheme and the options registered in its own group version).
groupVersions['meta.k8s.io/v1'] = { ...everyGroupVersion, PartialObjectMetadata: `${meta}.PartialObjectMetadata`, PartialObjectMetadataList: `${meta}.PartialObjectMetadataList` };

// kubernetes/api@v0.36.3 for a mirror directory /…/kubernetes+api/repo read at v0.36.3
const label = (s) => {
  const m = /([^/]+)\+([^/]+)\/repo(@.*)?$/.exec(s.name);
  return m ? `${m[1]}/${m[2]}${m[3] ?? ''}` : path.basename(s.name);
};
const sources = [api, machinery, extensions].map(label).join(', ');
const header = `// Generated by scripts/gen-protobuf-descriptor.mjs from ${sources}. Do not edit.\n`;

const sortedMessages = Object.fromEntries(Object.entries(messages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const typesText = JSON.stringify({ messages: sortedMessages, wrappers: wrappers.sort() });
writeFileSync(
  path.join(outDir, 'kube-types.generated.ts'),
  `${header}// Every message: [proto name, number, type, label (r repeated, m map), Go JSON rule, JSON name if not the proto name].\n` +
    `import type { KubeTypes } from './descriptor.js';\n\n` +
    `export const kubeTypes: KubeTypes = JSON.parse(${JSON.stringify(typesText)}) as KubeTypes;\n`,
);
const kindsOut = { groupVersions: Object.fromEntries(Object.entries(groupVersions).sort(([a], [b]) => (a < b ? -1 : 1))), everyGroupVersion, unversioned };
writeFileSync(
  path.join(outDir, 'kube-kinds.generated.ts'),
  `${header}// The kinds each built-in group version registers (register.go), with their message.\n` +
    `import type { KubeKinds } from './descriptor.js';\n\n` +
    `export const kubeKinds: KubeKinds = ${JSON.stringify(kindsOut, null, 1)};\n`,
);
process.stdout.write(`${Object.keys(messages).length} messages, ${Object.keys(groupVersions).length} group versions (${(typesText.length / 1024).toFixed(0)} KiB)\n`);
