import pkg from "../package.json" with { type: "json" };

export const SERVICE_NAME = "Location Proof Query Service";
export const VERSION: string = pkg.version;
