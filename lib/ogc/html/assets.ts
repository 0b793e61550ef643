/**
 * Our own static assets for the HTML pages: the stylesheet and the map script (plain browser JavaScript, kept as
 * strings so they deploy inside the function with no file lookup). Leaflet itself is read from its npm package.
 */
export const OGC_CSS = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 1rem 2rem; color: #1b1b1b; }
header nav { margin-top: 1rem; font-size: 13px; }
h1 { font-size: 1.5rem; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; word-break: break-all; }
th { background: #f4f4f4; }
#map { height: 480px; border: 1px solid #ccc; margin: 1rem 0; background: #dfe9f2; }
.links small { color: #666; }
.paging a { margin-right: 1rem; }
code { font-size: 12px; }
`;

/**
 * Draws the features of the page's JSON data block (id "features"): one circle marker per point, one shape per line
 * or polygon, each with a popup of its properties; a graticule instead of a third-party basemap, so the page loads
 * nothing from other origins (the CSP forbids it).
 */
export const MAP_JS = `"use strict";
(function () {
  var data = document.getElementById("features");
  var el = document.getElementById("map");
  if (!data || !el || !window.L) return;
  var collection = JSON.parse(data.textContent);
  var map = L.map(el, { worldCopyJump: true, attributionControl: false }).setView([20, 0], 2);
  var grid = { color: "#9db3c8", weight: 1, interactive: false };
  for (var lon = -180; lon <= 180; lon += 30) L.polyline([[-85, lon], [85, lon]], grid).addTo(map);
  for (var lat = -60; lat <= 60; lat += 30) L.polyline([[lat, -180], [lat, 180]], grid).addTo(map);
  function text(value) {
    var span = document.createElement("span");
    span.textContent = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    return span;
  }
  function popup(feature) {
    var table = document.createElement("table");
    var rows = [["id", feature.id]].concat(Object.keys(feature.properties || {}).map(function (k) { return [k, feature.properties[k]]; }));
    rows.forEach(function (r) {
      var tr = document.createElement("tr");
      var th = document.createElement("th");
      th.appendChild(text(r[0]));
      var td = document.createElement("td");
      td.appendChild(text(r[1]));
      tr.appendChild(th);
      tr.appendChild(td);
      table.appendChild(tr);
    });
    return table;
  }
  var layer = L.geoJSON(collection, {
    filter: function (f) { return f.geometry !== null; },
    pointToLayer: function (f, latlng) {
      return L.circleMarker(latlng, { radius: 6, color: "#b3261e", weight: 2, fillOpacity: 0.6, className: "feature-marker" });
    },
    style: function () { return { color: "#1f5fa8", weight: 2, className: "feature-marker" }; },
    onEachFeature: function (f, l) { l.bindPopup(function () { return popup(f); }, { maxWidth: 420 }); }
  }).addTo(map);
  var bounds = layer.getBounds();
  if (bounds.isValid()) map.fitBounds(bounds, { padding: [20, 20], maxZoom: 14 });
  el.setAttribute("data-feature-count", String(layer.getLayers().length));
})();
`;
