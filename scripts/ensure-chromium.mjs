// Browser tests drive the system's Chromium (no browser download is possible offline). This
// makes sure it is installed before `npm test`, installing Debian's package when run as root.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
if (existsSync(CHROMIUM)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot) {
  console.error(`Chromium is missing at ${CHROMIUM}. Install it (e.g. sudo apt-get install -y chromium) or set ENGRAM_CHROMIUM.`);
  process.exit(1);
}
console.log('Installing Chromium for the browser tests (apt-get install -y chromium)…');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is still missing.`);
  process.exit(1);
}
