// The peer of bench/movement.sh: PathFinding.js (npm "pathfinding") A* on each map that
// bench/movement_bench.c writes, corner to corner, diagonal moves allowed (past a closed
// square's corner only when the map's header says "cut"). Prints, per map, the median of
// several runs, timing findPath on a fresh clone of the grid (the library's documented use:
// a grid is consumed by one search), and the Node version it ran on.
import { readFileSync } from 'node:fs';
import PF from 'pathfinding';

for (const file of process.argv.slice(2)) {
  const [header, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
  const fields = header.split(' ');
  const [w, h, sx, sy, gx, gy] = fields.slice(0, 6).map(Number);
  const name = file.replace(/^.*-/, '').replace(/\.txt$/, '');
  const matrix = rows.map((r) => Array.from(r, (c) => (c === '1' ? 1 : 0)));
  if (matrix.length !== h || matrix[0].length !== w) throw new Error('bad map');
  const grid = new PF.Grid(w, h, matrix);
  const diagonalMovement =
    fields[6] === 'nocut' ? PF.DiagonalMovement.OnlyWhenNoObstacles : PF.DiagonalMovement.Always;
  const finder = new PF.AStarFinder({ diagonalMovement });
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
  console.log(
    `PathFinding.js A* (peer), ${name.padEnd(6)} ${times[2].toFixed(3).padStart(9)} ms  ` +
      `${length} steps  (Node ${process.versions.node})`,
  );
  console.log(`PEER_MS ${name} ${times[2].toFixed(3)}`);
}
