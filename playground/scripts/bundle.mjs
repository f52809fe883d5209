// Bundles the page into dist/: app.js (the page, CodeMirror, the wasm-bindgen glue and the
// repository's examples, embedded now), app.css, index.html. The WebAssembly module is put
// beside them by build.sh.
import { build } from 'esbuild';
import { readFile, readdir, mkdir, copyFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const repo = path.resolve(root, '..');
const dist = path.join(root, 'dist');
const pkg = path.join(root, 'build', 'pkg');

async function examples() {
  const configs = [{ name: 'webhooks.yaml', text: await readFile(path.join(repo, 'examples', 'webhooks.yaml'), 'utf8') }];
  const dir = path.join(repo, 'examples', 'reviews');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  // The pod creation first: it is the one the page opens with.
  names.sort((a, b) => (b === 'pod-create.json') - (a === 'pod-create.json'));
  const reviews = [];
  for (const name of names) reviews.push({ name, text: await readFile(path.join(dir, name), 'utf8') });
  if (reviews.length === 0) throw new Error(`no AdmissionReview in ${dir}`);
  return { configs, reviews };
}

const virtual = {
  name: 'playground',
  setup(b) {
    b.onResolve({ filter: /^engine$/ }, () => ({ path: path.join(pkg, 'matchcond_playground.js') }));
    b.onResolve({ filter: /^examples$/ }, () => ({ path: 'examples', namespace: 'examples' }));
    b.onLoad({ filter: /.*/, namespace: 'examples' }, async () => ({
      contents: `export const examples = ${JSON.stringify(await examples())};`,
      loader: 'js',
    }));
  },
};

await mkdir(dist, { recursive: true });
const result = await build({
  entryPoints: [path.join(root, 'web', 'main.js')],
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outfile: path.join(dist, 'app.js'),
  plugins: [virtual],
  metafile: true,
  logLevel: 'warning',
});
await copyFile(path.join(root, 'web', 'index.html'), path.join(dist, 'index.html'));
await copyFile(path.join(root, 'web', 'style.css'), path.join(dist, 'app.css'));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`bundled app.js: ${bytes} bytes`);
