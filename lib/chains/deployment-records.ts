import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The EAS deployment records of the `@ethereum-attestation-service/eas-contracts` package, read from its files
 * (deployments/<network>/.chainId, EAS.json, SchemaRegistry.json). Only the generator (scripts/generate-networks.ts)
 * and the test that checks its output use this: the package is a devDependency and its records are megabytes.
 */
export type DeploymentRecord = {
  network: string;
  chainId: number;
  eas: `0x${string}`;
  schemaRegistry: `0x${string}`;
  /** the SchemaRegistry's deployment block, from its receipt; null where the record carries none */
  registryBlock: number | null;
  packageVersion: string;
};

export function readDeploymentRecords(root: string): DeploymentRecord[] {
  const pkg = join(root, "node_modules/@ethereum-attestation-service/eas-contracts");
  const packageVersion = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version as string;
  const dir = join(pkg, "deployments");
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((network) => {
      const read = (file: string) => JSON.parse(readFileSync(join(dir, network, file), "utf8"));
      const eas = read("EAS.json");
      const registry = read("SchemaRegistry.json");
      const block = registry.receipt?.blockNumber;
      return {
        network,
        chainId: Number(readFileSync(join(dir, network, ".chainId"), "utf8").trim()),
        eas: eas.address,
        schemaRegistry: registry.address,
        registryBlock: typeof block === "number" ? block : null,
        packageVersion,
      };
    });
}
