-- PostGIS for the exact spatial functions of CQL2 on location-proof-shapes (lib/ogc/cql2/spatial.ts): the decoded
-- GeoJSON as a PostGIS geometry in a stored generated column, with a GiST index. PGlite loads the extension at open
-- (db/pglite.ts), Debian's postgresql-15-postgis-3 and Neon ship it.
CREATE EXTENSION IF NOT EXISTS postgis;--> statement-breakpoint
-- Stored rings may be unclosed (writers often forget, and the decoder accepts it: lib/location/geometry.ts): close
-- them, as the rest of the service reads them.
CREATE FUNCTION proof_closed_geojson(g jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  t text := g->>'type';
BEGIN
  IF t = 'Polygon' THEN
    RETURN jsonb_set(g, '{coordinates}', (
      SELECT coalesce(jsonb_agg(CASE WHEN r->0 = r->-1 THEN r ELSE r || jsonb_build_array(r->0) END ORDER BY i), '[]')
      FROM jsonb_array_elements(g->'coordinates') WITH ORDINALITY AS x(r, i)));
  ELSIF t = 'MultiPolygon' THEN
    RETURN jsonb_set(g, '{coordinates}', (
      SELECT coalesce(jsonb_agg(proof_closed_geojson(jsonb_build_object('type', 'Polygon', 'coordinates', p))->'coordinates' ORDER BY i), '[]')
      FROM jsonb_array_elements(g->'coordinates') WITH ORDINALITY AS x(p, i)));
  ELSIF t = 'GeometryCollection' THEN
    RETURN jsonb_set(g, '{geometries}', (
      SELECT coalesce(jsonb_agg(proof_closed_geojson(m) ORDER BY i), '[]')
      FROM jsonb_array_elements(g->'geometries') WITH ORDINALITY AS x(m, i)));
  END IF;
  RETURN g;
END $$;--> statement-breakpoint
-- The stored GeoJSON as a 2D geometry in EPSG:4326, read in the plane of longitude and latitude, except that a shape
-- whose bounds cross the antimeridian (west > east, lib/location/geometry.ts) is unwrapped: its part east of the
-- antimeridian is moved by +360 so the shape is whole, in [west, east + 360] (the literal is then tested together
-- with its copy moved by +360). An invalid shape (a self-crossing ring) is made valid; one PostGIS cannot read at all
-- is null (no geometry: unknown in every spatial predicate), never an error that would stop the sync.
CREATE FUNCTION proof_shape(g jsonb, west float8, east float8) RETURNS geometry LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  s geometry;
BEGIN
  IF g IS NULL THEN RETURN NULL; END IF;
  IF g->>'type' = 'Point' THEN
    RETURN ST_SetSRID(ST_MakePoint((g->'coordinates'->>0)::float8, (g->'coordinates'->>1)::float8), 4326);
  END IF;
  s := ST_SetSRID(ST_Force2D(ST_GeomFromGeoJSON(proof_closed_geojson(g))), 4326);
  IF NOT ST_IsValid(s) THEN s := ST_MakeValid(s); END IF;
  IF west > east THEN
    -- ST_ShiftLongitude moves x < 0 by +360 and x > 180 by -360; translated first, it moves exactly the vertices
    -- east of the antimeridian (x <= east) by +360 and keeps those from west on.
    IF west >= 0 THEN
      s := ST_Translate(ST_ShiftLongitude(ST_Translate(s, -west, 0)), west, 0);
    ELSE
      s := ST_Translate(ST_ShiftLongitude(ST_Translate(s, 180 - east, 0)), east + 180, 0);
    END IF;
  END IF;
  RETURN s;
EXCEPTION WHEN OTHERS THEN
  RETURN NULL;
END $$;--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "shape" geometry(Geometry, 4326) GENERATED ALWAYS AS (proof_shape("geometry", "min_lon", "max_lon")) STORED;--> statement-breakpoint
CREATE INDEX "location_proofs_shape_gist" ON "location_proofs" USING gist ("shape");--> statement-breakpoint
CREATE INDEX "location_proofs_crossing_shape_gist" ON "location_proofs" USING gist ("shape") WHERE "min_lon" > "max_lon";
