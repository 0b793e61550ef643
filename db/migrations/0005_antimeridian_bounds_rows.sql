-- Stored bounds and representative points of geometries that cross the antimeridian, recomputed with the rule the
-- indexer now applies (lib/location/geometry.ts: bboxOf, representativePoint): the shortest longitude extent, each
-- edge taken the short way round, stored west > east when it crosses ±180° (RFC 7946 §5.2); the point chosen on the
-- unwrapped shape. Before, such a geometry got world-wide bounds and a point on the far side of the globe.
-- Only a geometry whose plain longitude extent exceeds 180° can cross, so only those rows are visited; the rows'
-- proof_counts groups do not change (bounds stay non-null). The functions are this migration's own and are dropped
-- at its end; tests/ogc/antimeridian.test.ts runs them against the TypeScript rule on generated geometries.
CREATE FUNCTION lp_migration_paths(g jsonb) RETURNS TABLE(positions jsonb, ring boolean) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  t text := g->>'type';
  part jsonb;
  inner_part jsonb;
BEGIN
  IF t = 'Point' THEN
    positions := jsonb_build_array(g->'coordinates'); ring := false; RETURN NEXT;
  ELSIF t = 'MultiPoint' THEN
    FOR part IN SELECT e FROM jsonb_array_elements(g->'coordinates') WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
      positions := jsonb_build_array(part); ring := false; RETURN NEXT;
    END LOOP;
  ELSIF t = 'LineString' THEN
    positions := g->'coordinates'; ring := false; RETURN NEXT;
  ELSIF t = 'MultiLineString' OR t = 'Polygon' THEN
    FOR part IN SELECT e FROM jsonb_array_elements(g->'coordinates') WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
      positions := part; ring := t = 'Polygon'; RETURN NEXT;
    END LOOP;
  ELSIF t = 'MultiPolygon' THEN
    FOR part IN SELECT e FROM jsonb_array_elements(g->'coordinates') WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
      FOR inner_part IN SELECT e FROM jsonb_array_elements(part) WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
        positions := inner_part; ring := true; RETURN NEXT;
      END LOOP;
    END LOOP;
  ELSIF t = 'GeometryCollection' THEN
    FOR part IN SELECT e FROM jsonb_array_elements(g->'geometries') WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
      RETURN QUERY SELECT * FROM lp_migration_paths(part);
    END LOOP;
  END IF;
END $$;
--> statement-breakpoint
-- Whether (x, y) lies inside an areal part (even-odd ray casting, as inRing), longitudes below `shift_below` moved up
-- by 360° first.
CREATE FUNCTION lp_migration_contains(g jsonb, x float8, y float8, shift_below float8) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  t text := g->>'type';
  poly jsonb;
  ring jsonb;
  r int;
  inside boolean;
  len int;
  i int;
  j int;
  xi float8; yi float8; xj float8; yj float8;
BEGIN
  IF t = 'GeometryCollection' THEN
    FOR poly IN SELECT el.e FROM jsonb_array_elements(g->'geometries') AS el(e) LOOP
      IF lp_migration_contains(poly, x, y, shift_below) THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
  END IF;
  IF t <> 'Polygon' AND t <> 'MultiPolygon' THEN RETURN false; END IF;
  FOR poly IN SELECT e FROM jsonb_array_elements(CASE WHEN t = 'Polygon' THEN jsonb_build_array(g->'coordinates') ELSE g->'coordinates' END) AS el(e) LOOP
    r := 0;
    FOR ring IN SELECT e FROM jsonb_array_elements(poly) WITH ORDINALITY AS el(e, k) ORDER BY k LOOP
      inside := false;
      len := jsonb_array_length(ring);
      j := len - 1;
      FOR i IN 0 .. len - 1 LOOP
        xi := (ring->i->>0)::float8; yi := (ring->i->>1)::float8;
        xj := (ring->j->>0)::float8; yj := (ring->j->>1)::float8;
        IF xi < shift_below THEN xi := xi + 360; END IF;
        IF xj < shift_below THEN xj := xj + 360; END IF;
        IF (yi > y) <> (yj > y) AND x < ((xj - xi) * (y - yi)) / (yj - yi) + xi THEN inside := NOT inside; END IF;
        j := i;
      END LOOP;
      -- In the exterior ring and in no hole.
      IF r = 0 AND NOT inside THEN EXIT; END IF;
      IF r > 0 AND inside THEN inside := false; EXIT; END IF;
      inside := true;
      r := r + 1;
    END LOOP;
    IF r > 0 AND inside THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
--> statement-breakpoint
CREATE FUNCTION lp_migration_location(g jsonb,
  OUT longitude float8, OUT latitude float8, OUT west float8, OUT south float8, OUT east float8, OUT north float8)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  p record;
  n int;
  i int;
  x float8;
  prev float8;
  lo float8[] := '{}';
  hi float8[] := '{}';
  iv record;
  cur_lo float8;
  cur_hi float8;
  first_lo float8;
  widest float8;
  gap float8;
  merged_lo float8[] := '{}';
  merged_hi float8[] := '{}';
  shift float8;
  cx float8;
  cy float8;
  best_x float8;
  best_y float8;
  best_d float8 := 'Infinity';
  d float8;
  px float8;
  py float8;
BEGIN
  IF g->>'type' = 'Point' THEN
    longitude := (g->'coordinates'->>0)::float8; latitude := (g->'coordinates'->>1)::float8;
    west := longitude; east := longitude; south := latitude; north := latitude;
    RETURN;
  END IF;
  -- Longitude intervals covered: each vertex, each edge the short way round (lonIntervals).
  FOR p IN SELECT * FROM lp_migration_paths(g) LOOP
    n := jsonb_array_length(p.positions);
    prev := NULL;
    FOR i IN 0 .. n - (CASE WHEN p.ring AND n > 1 THEN 0 ELSE 1 END) LOOP
      x := (p.positions->(i % n)->>0)::float8;
      lo := lo || x; hi := hi || x;
      IF prev IS NOT NULL THEN
        IF abs(x - prev) <= 180 THEN
          lo := lo || least(x, prev); hi := hi || greatest(x, prev);
        ELSE
          lo := lo || greatest(x, prev); hi := hi || 180::float8;
          lo := lo || (-180)::float8; hi := hi || least(x, prev);
        END IF;
      END IF;
      prev := x;
    END LOOP;
  END LOOP;
  -- Merge them, then the widest uncovered range decides (lonExtent).
  FOR iv IN SELECT u.a, u.b FROM unnest(lo, hi) AS u(a, b) ORDER BY u.a LOOP
    IF cur_lo IS NOT NULL AND iv.a <= cur_hi THEN
      cur_hi := greatest(cur_hi, iv.b);
    ELSE
      IF cur_lo IS NOT NULL THEN merged_lo := merged_lo || cur_lo; merged_hi := merged_hi || cur_hi; END IF;
      cur_lo := iv.a; cur_hi := iv.b;
    END IF;
  END LOOP;
  merged_lo := merged_lo || cur_lo; merged_hi := merged_hi || cur_hi;
  n := array_length(merged_lo, 1);
  west := merged_lo[1]; east := merged_hi[n];
  widest := west + 180 + (180 - east);
  FOR i IN 2 .. n LOOP
    gap := merged_lo[i] - merged_hi[i - 1];
    IF gap > widest THEN widest := gap; west := merged_lo[i]; east := merged_hi[i - 1]; END IF;
  END LOOP;
  SELECT min((e->>1)::float8), max((e->>1)::float8) INTO south, north
    FROM lp_migration_paths(g) AS q, jsonb_array_elements(q.positions) AS e;
  -- The representative point (representativePoint), on the shape unwrapped past 180 when it crosses.
  shift := CASE WHEN west > east THEN west ELSE -1e308 END;
  cx := (west + (CASE WHEN west > east THEN east + 360 ELSE east END)) / 2;
  cy := (south + north) / 2;
  IF lp_migration_contains(g, cx, cy, shift) THEN
    longitude := cx; latitude := cy;
  ELSE
    FOR p IN SELECT * FROM lp_migration_paths(g) LOOP
      FOR i IN 0 .. jsonb_array_length(p.positions) - 1 LOOP
        px := (p.positions->i->>0)::float8; py := (p.positions->i->>1)::float8;
        IF px < shift THEN px := px + 360; END IF;
        d := (px - cx) ^ 2 + (py - cy) ^ 2;
        IF d < best_d THEN best_d := d; best_x := px; best_y := py; END IF;
      END LOOP;
    END LOOP;
    longitude := best_x; latitude := best_y;
  END IF;
  IF west > east AND longitude > 180 THEN longitude := longitude - 360; END IF;
END $$;
--> statement-breakpoint
UPDATE location_proofs AS p
   SET longitude = c.longitude, latitude = c.latitude,
       min_lon = c.west, min_lat = c.south, max_lon = c.east, max_lat = c.north
  FROM (SELECT q.chain_id, q.uid, l.*
          FROM location_proofs AS q CROSS JOIN LATERAL lp_migration_location(q.geometry) AS l
         WHERE q.geometry IS NOT NULL AND q.max_lon - q.min_lon > 180) AS c
 WHERE p.chain_id = c.chain_id AND p.uid = c.uid
   AND (p.longitude, p.latitude, p.min_lon, p.min_lat, p.max_lon, p.max_lat)
       IS DISTINCT FROM (c.longitude, c.latitude, c.west, c.south, c.east, c.north);
--> statement-breakpoint
DROP FUNCTION lp_migration_location(jsonb);
--> statement-breakpoint
DROP FUNCTION lp_migration_contains(jsonb, float8, float8, float8);
--> statement-breakpoint
DROP FUNCTION lp_migration_paths(jsonb);
