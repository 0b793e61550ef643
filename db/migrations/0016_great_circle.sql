-- The great-circle distance in metres between two points given in degrees (longitude, latitude), on the sphere of
-- the WGS84 mean radius R1 = (2a + b) / 3, the sphere PostGIS measures geography on when asked for a sphere. The
-- atan2 form (Vincenty's formula for the sphere) is accurate in double precision at every distance, from
-- millimetres to antipodal points, where the haversine's asin loses digits. A one-expression SQL function: the
-- planner inlines it into the query, so proximity (lib/proofs/near.ts) costs no function call per row.
CREATE OR REPLACE FUNCTION great_circle_m(lon1 float8, lat1 float8, lon2 float8, lat2 float8)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 6371008.771415059 * atan2(
    sqrt(power(cos(radians(lat2)) * sin(radians(lon2 - lon1)), 2)
      + power(cos(radians(lat1)) * sin(radians(lat2))
        - sin(radians(lat1)) * cos(radians(lat2)) * cos(radians(lon2 - lon1)), 2)),
    sin(radians(lat1)) * sin(radians(lat2)) + cos(radians(lat1)) * cos(radians(lat2)) * cos(radians(lon2 - lon1)))
$$;
