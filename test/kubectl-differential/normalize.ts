// Normalising kubectl output so that real kubectl's and ours compare: ages, UIDs, resourceVersions,
// timestamps, klog line headers, the client version lines (the reference is whatever kubectl the machine
// has), and the side marker in object names (each kubectl mutates its own copy: `cm-zr` and `cm-zo`).

/** normalize rewrites the run-dependent parts of kubectl output. */
export function normalize(text: string): string {
  return text
    .replace(/^([EWI])\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ /gm, "$1<klog> ")
    .replace(/^(Client Version:|Kustomize Version:) .*$/gm, "$1 <version>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uid>")
    .replace(/("?resourceVersion"?:\s*)"\d+"/g, '$1"<rv>"')
    .replace(/too old resource version: \d+ \(\d+\)/g, "too old resource version: <rv> (<rv>)")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/\b[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\b/g, "<time>")
    .replace(/(?<=\s|^)\d+(?:s|m|h|d|y)(?:\d+(?:s|m|h|d))?(?=\s|$)/gm, "<age>")
    .replace(/z[ro]\b/g, "zX")
    .replace(/\/(?:real|ours)\//g, "/SIDE/");
}
