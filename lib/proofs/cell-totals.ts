import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofCellCounts as cc, locationProofs as p, singleCell } from "../../db/schema.js";
import {
  type Bbox,
  coversWorld,
  overlaps,
  type ProofFilter,
  pointCoordinatesIn,
  spanningBoundsIntersect,
  testsOnly,
} from "./filter.js";

/**
 * A box with fewer than 2 × 2 whole 1° cells inside it (one across the antimeridian measured unwrapped): it holds a
 * few cells' proofs at most, so its own rows are quickly counted, and quickly read through the GiST index
 * (lib/proofs/query.ts).
 */
export function fewCells(b: Bbox): boolean {
  const east = b.minLon > b.maxLon ? b.maxLon + 360 : b.maxLon;
  return Math.floor(east) - Math.ceil(b.minLon) < 2 || Math.floor(b.maxLat) - Math.ceil(b.minLat) < 2;
}

/**
 * The count of a bbox on chain and revoked, from proof_cell_counts (db/schema.ts): exact, without visiting the
 * hundreds of thousands of matches a continent holds.
 *
 * The box's interior grid — the 1° cells wholly inside it, [x0, x1] × [y0, y1] with x0 = ceil(west),
 * x1 = floor(east) … — splits the matches in three disjoint parts:
 * 1. the proofs whose bounds lie within one interior cell: all of them match (bounds in the box; so is the
 *    representative point, which lies in its bounds), and proof_cell_counts holds their number;
 * 2. the proofs whose bounds lie within one cell that is not interior: such a cell lies outside the interior
 *    rectangle's inside, so a match touches the box outside it, in one of four edge strips; counted from the rows,
 *    found by the GiST index on those strips (a thin frame: a few per cent of the box);
 * 3. the proofs whose bounds span a grid line (or cross the antimeridian): counted from the rows through the small
 *    partial GiST index that holds only them.
 * Part 3 tests the box on the spanning proofs' own index expression (spanningBoundsIntersect: a plain box and the
 * box 360° east, where the unwrapped east part of bounds across the antimeridian lies), part 2 the strips (inside
 * the box); both test the point too for the point target; so the sum is exactly the count of the filter. Undefined for a filter of another shape, a box crossing the antimeridian, or a box with
 * fewer than 2 × 2 interior cells (few matches: counting the rows is as fast).
 */
export async function countFromCells(
  db: Db,
  f: ProofFilter,
  countRows: (f: ProofFilter) => Promise<number>,
): Promise<number | undefined> {
  const b = f.bbox;
  if (!b || coversWorld(b) || b.minLon > b.maxLon || fewCells(b) || f.bboxMatchesMissing) return undefined;
  if (!testsOnly(f, ["chains", "bbox"])) return undefined;
  const [x0, x1, y0, y1] = [
    Math.ceil(b.minLon),
    Math.floor(b.maxLon),
    Math.ceil(b.minLat),
    Math.floor(b.maxLat),
  ];

  const parts: SQL[] = [
    sql`${cc.cellLon} between ${x0} and ${x1 - 1}`,
    sql`${cc.cellLat} between ${y0} and ${y1 - 1}`,
  ];
  if (!f.includeRevoked) parts.push(eq(cc.revoked, false));
  if (f.chains?.length) parts.push(inArray(cc.chain, f.chains));
  const [row] = await queryRows<{ n: string | number | null }>(
    db,
    sql`select coalesce(sum(${cc.n}), 0) as n from ${cc} where ${and(...parts)}`,
  );
  const interior = Number(row?.n ?? 0);

  const inInteriorCell = sql`(floor(${p.minLon}) between ${x0} and ${x1 - 1} and floor(${p.minLat}) between ${y0} and ${y1 - 1})`;
  const strips = sql`(${overlaps(b.minLon, b.minLat, x0, b.maxLat)} or ${overlaps(x1, b.minLat, b.maxLon, b.maxLat)} or ${overlaps(x0, b.minLat, x1, y0)} or ${overlaps(x0, y1, x1, b.maxLat)})`;
  // The strips lie in the box, so bounds that meet one meet the box: the box itself is left out of this count's
  // condition, or the planner would AND its whole index range (every match) with the strips'.
  const edges = await countRows({
    ...f,
    bbox: undefined,
    bboxOn: undefined,
    where: [
      singleCell(p),
      strips,
      sql`not ${inInteriorCell}`,
      ...(f.bboxOn === "point" ? [pointCoordinatesIn(b)] : []),
    ],
  });
  const spanning = await countRows({
    ...f,
    bbox: undefined,
    bboxOn: undefined,
    where: [
      sql`not ${singleCell(p)}`,
      spanningBoundsIntersect(b),
      ...(f.bboxOn === "point" ? [pointCoordinatesIn(b)] : []),
    ],
  });
  return interior + edges + spanning;
}
