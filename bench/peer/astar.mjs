// The peer of bench/movement.sh: PathFinding.js (npm "pathfinding") A* on the map that
// bench/movement_bench.c writes, corner to corner, diagonal moves allowed. Prints the median
// of several runs, timing findPath on a fresh clone of the grid (the library's documented use:
// a grid is consumed by one search).
import { readFileSync } from 'node:fs';
import PF from 'pathfinding';

const [header, ...rows] = readFileSync(process.argv[2], 'utf8').trim().split('\n');
const [w, h, sx, sy, gx, gy] = header.split(' ').map(Number);
const matrix = rows.map((r) => Array.from(r, (c) => (c === '1' ? 1 : 0)));
if (matrix.length !== h || matrix[0].length !== w) throw new Error('bad map');
const grid = new PF.Grid(w, h, matrix);
const finder = new PF.AStarFinder({ diagonalMovement: PF.DiagonalMovement.Always });
const times = [];
let length = 0;
for (let run = 0; run < 5; run++) {
  const g = grid.clone();
  const t0 = process.hrtime.bigint();
  const path = finder.findPath(sx, sy, gx, gy, g);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  length = path.length - 1;
}
times.sort((a, b) => a - b);
console.log(`PathFinding.js A* (peer)             ${times[2].toFixed(3).padStart(9)} ms  ${length} steps`);
console.log(`PEER_MS ${times[2].toFixed(3)}`);
