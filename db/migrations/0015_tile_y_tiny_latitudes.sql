-- A latitude so close to 0 that radians() would underflow to zero (PostgreSQL refuses a product that underflows:
-- "value out of range: underflow", which failed the insert of such a proof) is taken as 0. Nothing changes for any
-- other point: below 1e-300 degrees, 0.5 - atanh(sin(φ)) / 2π is 0.5 exactly in double precision, as it is at 0.
CREATE OR REPLACE FUNCTION proof_tile_wy(lat float8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(greatest(floor((0.5 - atanh(sin(radians(greatest(-85.0511287798066, least(85.0511287798066,
    CASE WHEN abs(lat) < 1e-300 THEN 0 ELSE lat END))))) / (2 * pi())) * 4294967296), 0), 4294967295)::int8
$$;
