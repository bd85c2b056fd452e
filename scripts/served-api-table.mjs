// Prints the README's table of served resources from the catalogue (run after `npm run build`):
//   node scripts/served-api-table.mjs
import { builtinResources } from '../dist/server/registry/catalogue/index.js';
import { extraSubresourcesOf } from '../dist/server/endpoints/subresources/table.js';

const cell = (xs) => (xs.length ? xs.map((x) => `\`${x}\``).join(', ') : '—');
const rows = builtinResources.map((r) => {
  const subs = Object.entries(r.subresources ?? {})
    .filter(([, v]) => v)
    .map(([k]) => k);
  if (r.group === '' && r.resource === 'namespaces' && !subs.includes('finalize')) subs.push('finalize');
  for (const x of extraSubresourcesOf(r.group, r.version, r.resource)) if (!subs.includes(x.subresource)) subs.push(x.subresource);
  const gv = r.group ? `${r.group}/${r.version}` : r.version;
  const createOnly = r.virtual || (r.verbs?.length === 1 && r.verbs[0] === 'create');
  const verbs = [...(createOnly ? ['(create only)'] : []), ...subs].join(', ') || '—';
  return `| ${gv} | ${r.resource} | ${r.kind} | ${r.namespaced ? 'Namespaced' : 'Cluster'} | ${cell(r.shortNames ?? [])} | ${verbs} | ${cell(r.categories ?? [])} |`;
});
console.log('| group/version | resource | kind | scope | short names | subresources | categories |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
console.log(`\n${builtinResources.length} resources.`);
