#!/bin/sh
# Remakes the Blender fixtures in this folder with Debian's Blender (3.4.1 made the committed
# ones). Run from the repository root: sh tests/data/blender/make_fixtures.sh
set -e
out=tests/data/blender
blender -b --factory-startup --python "$out/make_car.py" -- "$out"
# The Empties variant goes through the export script, as a user's .blend would.
tmp=$(mktemp -d)
mv "$out/car_empties.blend" "$tmp/"
blender -b "$tmp/car_empties.blend" --python tools/blender/export_raycar.py -- "$out/blender_empties.obj" --force
rm -r "$tmp"
