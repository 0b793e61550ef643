/** The v0.1 location-proof schema, identical on every chain: known by its UID (other location schemas are found by their fields). */
export const LOCATION_SCHEMA =
  "uint256 eventTimestamp,string srs,string locationType,string location,string[] recipeType,bytes[] recipePayload,string[] mediaType,string[] mediaData,string memo";

/** keccak256(abi.encodePacked(schema, resolver = 0x0, revocable = true)) */
export const LOCATION_SCHEMA_UID = "0xba4171c92572b1e4f241d044c32cdf083be9fd946b8766977558ca6378c824e2";
