#!/usr/bin/python3
"""OWSLib's OGC API - Features client (Debian's python3-owslib) reads the service in EPSG:4326 (Part 2).

Usage: owslib-crs.py <base URL of the service>

The same pages are read in CRS84 and with crs=EPSG:4326, through owslib.ogcapi.features.Features. EPSG:4326 orders
its axes latitude first, so every position of the EPSG:4326 page must be the CRS84 position with its two numbers
swapped, feature by feature, on both collections; a box given in EPSG:4326 (bbox-crs, latitude first) must select
what the same box in CRS84 selects. The collection must list EPSG:4326 among its crs and CRS84 as its storageCrs.
Prints one line per check; exits non-zero on the first failure.
"""

import sys

from owslib import __version__ as owslib_version
from owslib.ogcapi.features import Features

CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
EPSG4326 = "http://www.opengis.net/def/crs/EPSG/0/4326"


def fail(message):
    print(f"owslib: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def swapped(coordinates):
    """Every position of nested coordinates with its first two numbers swapped."""
    if isinstance(coordinates[0], (int, float)):
        return [coordinates[1], coordinates[0], *coordinates[2:]]
    return [swapped(c) for c in coordinates]


def positions(coordinates):
    if isinstance(coordinates[0], (int, float)):
        yield coordinates
        return
    for c in coordinates:
        yield from positions(c)


def main():
    base = sys.argv[1].rstrip("/") + "/api/ogc"
    api = Features(base)
    # feature_collections(): the ids of the collections whose itemType is feature.
    ids = api.feature_collections()
    for collection_id in ("location-proofs", "location-proof-shapes"):
        if collection_id not in ids:
            fail(f"{collection_id} is not among the collections ({ids})")
        info = api.collection(collection_id)
        if EPSG4326 not in info.get("crs", []):
            fail(f"{collection_id} does not list EPSG:4326 in its crs: {info.get('crs')}")
        if info.get("storageCrs") != CRS84:
            fail(f"{collection_id} storageCrs is {info.get('storageCrs')}, not CRS84")

        plain = api.collection_items(collection_id, limit=200)["features"]
        latlon = api.collection_items(collection_id, limit=200, crs=EPSG4326)["features"]
        if [f["id"] for f in plain] != [f["id"] for f in latlon]:
            fail(f"{collection_id}: the EPSG:4326 page holds other features than the CRS84 page")
        compared = 0
        types = set()
        for a, b in zip(plain, latlon):
            if a["geometry"] is None:
                if b["geometry"] is not None:
                    fail(f"{collection_id} {a['id']}: a geometry in EPSG:4326 where CRS84 has none")
                continue
            types.add(a["geometry"]["type"])
            if a["geometry"]["type"] == "GeometryCollection":
                continue
            if b["geometry"]["coordinates"] != swapped(a["geometry"]["coordinates"]):
                fail(
                    f"{collection_id} {a['id']}: EPSG:4326 {b['geometry']['coordinates']} is not CRS84 "
                    f"{a['geometry']['coordinates']} latitude first"
                )
            for lat, lon, *_ in positions(b["geometry"]["coordinates"]):
                if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                    fail(f"{collection_id} {a['id']}: ({lat}, {lon}) is not latitude, longitude")
            compared += 1
        # Not vacuous: positions whose two numbers differ, so a swap shows.
        if compared < 10:
            fail(f"{collection_id}: only {compared} features with coordinates to compare")
        print(
            f"owslib: ok: {collection_id} read in EPSG:4326 by OWSLib {owslib_version}: {compared} features "
            f"({', '.join(sorted(types))}) latitude first, each the CRS84 feature's position swapped"
        )

    # A box given latitude first (bbox-crs=EPSG:4326) selects what the same box in CRS84 selects (Europe).
    box = [-10, 35, 30, 60]
    in_crs84 = api.collection_items("location-proofs", limit=1000, bbox=box)
    in_4326 = api.collection_items(
        "location-proofs", limit=1000, bbox=[box[1], box[0], box[3], box[2]], **{"bbox-crs": EPSG4326}
    )
    a = sorted(f["id"] for f in in_crs84["features"] if f["geometry"])
    b = sorted(f["id"] for f in in_4326["features"] if f["geometry"])
    if not a:
        fail("no proofs with a geometry in the test box (seed data changed?)")
    if a != b:
        fail(f"bbox-crs=EPSG:4326 selects {len(b)} proofs with a geometry, the CRS84 box {len(a)}")
    print(f"owslib: ok: a box latitude first (bbox-crs=EPSG:4326) selects the same {len(a)} located proofs as in CRS84")


if __name__ == "__main__":
    main()
