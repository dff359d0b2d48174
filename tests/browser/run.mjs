// What ctest runs for one scenario file: `node run.mjs smoke.test.mjs BUDGET_S`. Runs the file with
// Node's own test runner (spec reporter) and passes its exit status on.
//
// Without node_modules (`npm ci` not run), the scenario is skipped (exit 77, ctest's
// SKIP_RETURN_CODE) only when IRONHOLD_BROWSER_TESTS=optional says browser tests may be left out;
// otherwise that is a failure, so CI can never skip them silently.
//
// BUDGET_S, shorter than ctest's TIMEOUT: past it the scenario gets SIGTERM, on which the harness
// stops its service and PostgreSQL and removes their files before exiting. ctest's own timeout
// would SIGKILL the process tree, leaving the (daemonized) PostgreSQL behind.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [file, budgetText = '380'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node run.mjs SCENARIO.test.mjs [BUDGET_S]');
  process.exit(2);
}

if (!fs.existsSync(path.join(here, 'node_modules', 'playwright-core', 'package.json'))) {
  const why = `${path.join(here, 'node_modules')} has no playwright-core: run \`npm ci\` in ${here} (scripts/test.sh does)`;
  if (process.env.IRONHOLD_BROWSER_TESTS === 'optional') {
    console.log(`skipped: ${why}; IRONHOLD_BROWSER_TESTS=optional`);
    process.exit(77);
  }
  console.error(`${why}. Set IRONHOLD_BROWSER_TESTS=optional to skip the browser tests instead.`);
  process.exit(1);
}

// The file runs in this child itself (not under `--test`, which would start one more process), so
// that SIGTERM reaches the harness.
const child = spawn(process.execPath, ['--test-reporter=spec', path.resolve(here, file)], { cwd: here, stdio: 'inherit' });
const budget = Number(budgetText) * 1000;
const timer = setTimeout(() => {
  console.error(`run.mjs: ${file} still runs after ${budgetText} s: SIGTERM (its service is stopped and removed)`);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
}, budget);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  clearTimeout(timer);
  process.exit(code ?? (signal ? 1 : 0));
});
