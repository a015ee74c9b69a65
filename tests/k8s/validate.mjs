// Validates Kubernetes manifests offline against the API's own schemas, with two engines from
// the npm registry, both generated from the Kubernetes OpenAPI specification:
//   kubernetes-models 5.1.0: JSON Schema validators (Kubernetes 1.27.1): types, required fields,
//     enums, formats;
//   kubernetes-types 1.30.0 + TypeScript: each object typed as its kind, so a misspelt or
//     unknown field (which JSON Schema without additionalProperties lets through) is an error.
// kubernetes-sigs/agent-sandbox's kinds: their CRD schema is in no registry CI reaches, so only
// the pod template inside them (a core/v1 PodTemplateSpec) is checked, by both engines.
// usage: node validate.mjs FILE.yaml... ; exit 1 on any error (each printed as FILE: doc N: ...).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);

// apiVersion/kind -> [kubernetes-models module, kubernetes-types module]
const KINDS = {
  'apps/v1/Deployment': ['kubernetes-models/apps/v1', 'kubernetes-types/apps/v1'],
  'v1/Service': ['kubernetes-models/v1', 'kubernetes-types/core/v1'],
  'v1/ConfigMap': ['kubernetes-models/v1', 'kubernetes-types/core/v1'],
  'v1/Secret': ['kubernetes-models/v1', 'kubernetes-types/core/v1'],
  'v1/Namespace': ['kubernetes-models/v1', 'kubernetes-types/core/v1'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-models/autoscaling/v2', 'kubernetes-types/autoscaling/v2'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1', 'kubernetes-types/policy/v1'],
  'networking.k8s.io/v1/NetworkPolicy': ['kubernetes-models/networking.k8s.io/v1', 'kubernetes-types/networking/v1'],
};
// Custom resources whose pod template is checked as a core/v1 PodTemplateSpec.
const POD_TEMPLATE_AT = {
  'extensions.agents.x-k8s.io/v1beta1/SandboxTemplate': ['spec', 'podTemplate'],
  'agents.x-k8s.io/v1beta1/Sandbox': ['spec', 'podTemplate'],
};
const NOT_CHECKED = new Set(['extensions.agents.x-k8s.io/v1beta1/SandboxWarmPool',
  'kustomize.config.k8s.io/v1beta1/Kustomization']);

const errors = [];
const typed = [];  // [label, type module, type name, object]
let checked = 0;

async function schemaCheck(label, mod, kind, obj) {
  const Cls = (await import(mod))[kind];
  if (!Cls) throw new Error(`${mod} has no ${kind}`);
  try {
    new Cls(obj).validate();
  } catch (e) {
    errors.push(`${label}: ${e.message}`);
  }
}

for (const file of process.argv.slice(2)) {
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  for (const [i, doc] of docs.entries()) {
    const label = `${file}: doc ${i + 1}`;
    if (doc.errors.length) {
      errors.push(`${label}: YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const obj = doc.toJS();
    if (obj === null) continue;
    const key = `${obj.apiVersion}/${obj.kind}`;
    if (KINDS[key]) {
      await schemaCheck(label, KINDS[key][0], obj.kind, obj);
      typed.push([label, KINDS[key][1], obj.kind, obj]);
      ++checked;
    } else if (POD_TEMPLATE_AT[key]) {
      let t = obj;
      for (const k of POD_TEMPLATE_AT[key]) t = t?.[k];
      if (!t) {
        errors.push(`${label}: ${key} has no ${POD_TEMPLATE_AT[key].join('.')}`);
        continue;
      }
      await schemaCheck(`${label} (podTemplate)`, 'kubernetes-models/v1', 'PodTemplateSpec', t);
      typed.push([`${label} (podTemplate)`, 'kubernetes-types/core/v1', 'PodTemplateSpec', t]);
      ++checked;
    } else if (!NOT_CHECKED.has(key)) {
      errors.push(`${label}: no schema for ${key} here`);
    }
  }
}

// TypeScript: one annotated constant per object; excess properties are errors.
if (typed.length) {
  // Inside this folder, so that the imports resolve to ./node_modules.
  const dir = fs.mkdtempSync(path.join(here, '.check-'));
  const lines = typed.map(([, mod, type], i) => `import type { ${type} as T${i} } from '${mod}';`);
  typed.forEach(([label, , , obj], i) => {
    lines.push(`// ${label}`);
    lines.push(`export const o${i}: T${i} = ${JSON.stringify(obj, null, 2)};`);
  });
  const ts = path.join(dir, 'manifests.ts');
  fs.writeFileSync(ts, lines.join('\n') + '\n');
  const tsc = require.resolve('typescript/bin/tsc');
  const { spawnSync } = await import('node:child_process');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { noEmit: true, strict: true, skipLibCheck: true, module: 'preserve', moduleResolution: 'bundler', types: [] },
    files: ['manifests.ts'],
  }));
  const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', cwd: here });
  if (r.status !== 0) {
    const src = fs.readFileSync(ts, 'utf8').split('\n');
    for (const line of (r.stdout + r.stderr).split('\n').filter((l) => l.includes('error TS'))) {
      const m = line.match(/\((\d+),\d+\)/);
      let which = '';
      if (m) for (let n = Number(m[1]) - 1; n >= 0; --n) if (src[n].startsWith('// ')) { which = src[n].slice(3); break; }
      errors.push(`${which}: ${line.replace(/^.*error /, 'error ')}`);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (errors.length) {
  for (const e of errors) console.error(e);
  console.error(`k8s: ${errors.length} error(s) in ${checked} object(s)`);
  process.exit(1);
}
console.log(`k8s: ${checked} object(s) valid`);
