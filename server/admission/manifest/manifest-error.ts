// One problem found while loading a manifest directory: where (file, object, field) and what, as one line.

export interface ManifestError {
  /** the file, absolute; the directory itself for errors reading it */
  readonly file: string;
  /** the object's kind, when the document got that far */
  readonly kind?: string;
  /** the object's metadata.name, when it has one */
  readonly name?: string;
  /** the field path inside the object ("webhooks[0].clientConfig.url"), or the item of a v1 List ("items[2]") */
  readonly field?: string;
  /** kube-apiserver's text for the problem */
  readonly reason: string;
}

/** `<file>: <kind>/<name>: <field>: <reason>`, leaving out what is not known. */
export function formatManifestError(e: ManifestError): string {
  const object = e.kind ? (e.name ? `${e.kind}/${e.name}` : e.kind) : e.name;
  return [e.file, object, e.field, e.reason].filter((part) => part !== undefined && part !== '').join(': ');
}
