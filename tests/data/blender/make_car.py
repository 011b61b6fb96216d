# Builds a small car in Blender and exports it the ways a user would; the files beside this
# script were made by it with Debian's Blender 3.4.1 (make_fixtures.sh runs it):
#
#   blender -b --factory-startup --python tests/data/blender/make_car.py -- OUTDIR
#
# The car: a 1300 kg closed box body `hull1` (4.2 x 1.8 x 0.8 m), four 24-sided cylinder wheels
# wheel1..4 (radius 0.33 m, width 0.22 m; 1, 2 front, 3, 4 rear), helpers wheelN_lower at each
# wheel's centre and wheelN_upper 0.25 m above it (len_initial 0.25 m), and eye_pos 6 m behind and 2.5 m
# up for the chase camera. Modelled as
# Blender users do: Z up, the car's front towards -Y (it faces the Front view).
#
# Written to OUTDIR:
#   blender_yup_vertex.obj   Blender's exporter, its default axes (Y up, -Z forward); helpers
#                            are one-vertex meshes (written as a bare `v` line)
#   blender_zup_edge.obj     Blender's exporter with Z up, Y forward (Blender's own axes);
#                            helpers are two-vertex edge meshes (written as `l a b`)
#   blender_legacy.obj       the legacy exporter (File > Export > Wavefront (.obj) (legacy)),
#                            meshes keeping Blender's default names: objects come out as
#                            hull1_Cube, wheel1_Cylinder, ... (raycar names the fix)
#   car_empties.blend        the same car with Empties as helpers, for export_raycar.py
# and a .vehicle.toml beside each OBJ, its [model] axes read back from the exported file.

import os
import sys

import bpy

OUT = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
RADIUS, WIDTH, TRAVEL = 0.33, 0.22, 0.25
WHEELS = [  # name, x (m, +x is the car's left), y (m, front at -y)
    ("wheel1", 0.78, -1.35), ("wheel2", -0.78, -1.35), ("wheel3", 0.78, 1.35), ("wheel4", -0.78, 1.35)]


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def mesh_object(name, vertices, edges=(), faces=(), mesh_name=None):
    mesh = bpy.data.meshes.new(mesh_name or name)
    mesh.from_pydata(vertices, list(edges), list(faces))
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def helper(name, position, kind):
    x, y, z = position
    if kind == "vertex":
        mesh_object(name, [position])
    elif kind == "edge":  # across the car, centred on the position
        mesh_object(name, [(x - 0.02, y, z), (x + 0.02, y, z)], edges=[(0, 1)])
    else:
        empty = bpy.data.objects.new(name, None)
        empty.location = position
        bpy.context.scene.collection.objects.link(empty)


def build(helper_kind, blender_mesh_names=False):
    reset()
    # The body, a closed box from z 0.35 to 1.15 m. Blender's primitives name their meshes "Cube",
    # "Cylinder", ...: the legacy exporter then writes "hull1_Cube".
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.75))
    body = bpy.context.active_object
    body.name = "hull1"
    body.scale = (1.8, 4.2, 0.8)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    if not blender_mesh_names:
        body.data.name = "hull1"
    for name, x, y in WHEELS:
        # A cylinder about the car's right axis (X).
        bpy.ops.mesh.primitive_cylinder_add(vertices=24, radius=RADIUS, depth=WIDTH, location=(x, y, RADIUS),
                                            rotation=(0, 1.5707963267948966, 0))
        wheel = bpy.context.active_object
        wheel.name = name
        bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)
        if not blender_mesh_names:
            wheel.data.name = name
        helper(name + "_lower", (x, y, RADIUS), helper_kind)
        helper(name + "_upper", (x, y, RADIUS + TRAVEL), helper_kind)
    helper("eye_pos", (0, 6.0, 2.5), helper_kind)  # behind (+y) and above: the chase camera


def read_centroids(path):
    """Object name -> centroid of the vertices written under it, read back from an OBJ."""
    centroids, name, points = {}, None, []
    with open(path) as obj:
        for line in obj:
            parts = line.split()
            if not parts:
                continue
            if parts[0] in ("o", "g"):
                if name and points:
                    centroids[name] = [sum(c) / len(points) for c in zip(*points)]
                name, points = " ".join(parts[1:]), []
            elif parts[0] == "v":
                points.append([float(c) for c in parts[1:4]])
    if name and points:
        centroids[name] = [sum(c) / len(points) for c in zip(*points)]
    return centroids


def axis_text(vector):
    axis = max(range(3), key=lambda i: abs(vector[i]))
    return ("+" if vector[axis] > 0 else "-") + "xyz"[axis]


def write_script(obj_name, body, wheel, up_vector, forward_vector):
    lines = ["# Written by tests/data/blender/make_car.py for %s (Blender %s)." %
             (obj_name, bpy.app.version_string),
             "[model]", 'obj = "%s"' % obj_name, 'up = "%s"' % axis_text(up_vector),
             'forward = "%s"' % axis_text(forward_vector), "", "[[hull]]", "flags = 1", "mass = 1300", ""]
    for i in range(4):
        lines += ["[[wheel]]", "axle = %d" % (i // 2), "driving = %d" % (1 if i >= 2 else 0), "len_max = 0.35", ""]
    lines += ["[params]", "engine_power = 90000", "engine_maxRPM = 6000", "engine_shiftupRPM = 5200",
              "engine_shiftdownRPM = 2200", "stabilizer = 0.3", ""]
    with open(os.path.join(OUT, obj_name.replace(".obj", ".vehicle.toml")), "w") as out:
        out.write("\n".join(lines))


def export(obj_name, exporter, **axes):
    path = os.path.join(OUT, obj_name)
    exporter(filepath=path, **axes)
    # The script's axes, read back from what the exporter wrote: up from a wheel's lower to its
    # upper helper, forward from a rear wheel to a front one (both names as written).
    c = read_centroids(path)
    def find(name):
        return c.get(name) or next(v for k, v in c.items() if k.startswith(name + "_"))
    up = [a - b for a, b in zip(find("wheel1_upper"), find("wheel1_lower"))]
    forward = [a - b for a, b in zip(find("wheel1"), find("wheel3"))]
    write_script(obj_name, "hull1", "wheel1", up, forward)
    print("make_car: wrote %s (up %s, forward %s)" % (path, axis_text(up), axis_text(forward)))


os.makedirs(OUT, exist_ok=True)
build("vertex")
export("blender_yup_vertex.obj", bpy.ops.wm.obj_export)
build("edge")
export("blender_zup_edge.obj", bpy.ops.wm.obj_export, forward_axis="Y", up_axis="Z")
build("vertex", blender_mesh_names=True)
export("blender_legacy.obj", bpy.ops.export_scene.obj)
build("empty")
bpy.ops.wm.save_as_mainfile(filepath=os.path.join(OUT, "car_empties.blend"))
