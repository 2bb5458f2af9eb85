// The Reflect metadata functions that @peculiar/x509's dependency tsyringe insists on at load time (it throws
// "tsyringe requires a reflect polyfill" without Reflect.getMetadata). No polyfill package is installed, and
// x509 uses tsyringe only as a registry, so this small store is enough; imported before @peculiar/x509.

type Store = Map<string | symbol | undefined, Map<unknown, unknown>>;
const stores = new WeakMap<object, Store>();

function own(target: object, prop: string | symbol | undefined, create: boolean): Map<unknown, unknown> | undefined {
  let byProp = stores.get(target);
  if (!byProp && create) stores.set(target, (byProp = new Map()));
  let m = byProp?.get(prop);
  if (!m && create && byProp) byProp.set(prop, (m = new Map()));
  return m;
}

function getMetadata(key: unknown, target: object, prop?: string | symbol): unknown {
  for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
    const m = own(t, prop, false);
    if (m?.has(key)) return m.get(key);
  }
  return undefined;
}

const api = {
  defineMetadata: (key: unknown, value: unknown, target: object, prop?: string | symbol) => {
    own(target, prop, true)?.set(key, value);
  },
  getMetadata,
  getOwnMetadata: (key: unknown, target: object, prop?: string | symbol) => own(target, prop, false)?.get(key),
  hasMetadata: (key: unknown, target: object, prop?: string | symbol) => getMetadata(key, target, prop) !== undefined,
  metadata: (key: unknown, value: unknown) => (target: object, prop?: string | symbol) => {
    own(target, prop, true)?.set(key, value);
  },
};

const reflect = Reflect as unknown as Record<string, unknown>;
for (const [name, fn] of Object.entries(api)) if (typeof reflect[name] !== "function") reflect[name] = fn;
