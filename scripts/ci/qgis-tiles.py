#!/usr/bin/env python3
"""QGIS (PyQGIS, headless) loads the service's vector tiles as a vector tile layer and renders them.

Usage: QT_QPA_PLATFORM=offscreen python3 scripts/ci/qgis-tiles.py BASE_URL [OUT.png]
  BASE_URL  the service, e.g. http://127.0.0.1:3000 (a dev server with proofs: npm run dev -- --seed 300)
  OUT.png   where the rendered map goes (default: qgis-tiles.png)

Debian 12: apt-get install -y --no-install-recommends python3-qgis qgis-providers. The layer is the tile URL
template as QGIS's "Add Vector Tile Layer" takes it (type=xyz, {z}/{x}/{y}, zoom 0 to 18); the map of the world is
rendered at 1024 x 512 and the script checks that the layer is valid, that QGIS fetched tiles and that the proofs
were drawn (pixels other than the background). Exits non-zero otherwise.
"""
import sys

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsMapRendererSequentialJob,
    QgsMapSettings,
    QgsRectangle,
    QgsVectorTileLayer,
)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor

base = sys.argv[1].rstrip("/")
out = sys.argv[2] if len(sys.argv) > 2 else "qgis-tiles.png"
template = f"{base}/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/{{z}}/{{x}}/{{y}}"

app = QgsApplication([], False)
app.initQgis()
try:
    layer = QgsVectorTileLayer(f"type=xyz&url={template}&zmin=0&zmax=18", "location proofs")
    if not layer.isValid():
        sys.exit(f"qgis-tiles: FAIL: the vector tile layer is not valid ({template})")
    settings = QgsMapSettings()
    settings.setLayers([layer])
    settings.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    settings.setExtent(QgsRectangle(-20037508.34, -15000000, 20037508.34, 15000000))
    settings.setOutputSize(QSize(1024, 512))
    background = QColor(255, 255, 255)
    settings.setBackgroundColor(background)
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    image.save(out)
    drawn = sum(
        1
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
        if image.pixelColor(x, y) != background
    )
    errors = job.errors()
    if errors:
        sys.exit(f"qgis-tiles: FAIL: rendering errors: {[e.message for e in errors]}")
    if drawn < 50:
        sys.exit(f"qgis-tiles: FAIL: the rendered map shows nothing of the layer ({drawn} pixels drawn); see {out}")
    print(f"qgis-tiles: ok: QGIS {Qgis.version()} rendered the tiles ({drawn} sampled pixels drawn) to {out}")
finally:
    app.exitQgis()
