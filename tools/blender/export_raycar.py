# Writes a Blender scene as a raycar model: an OBJ with every mesh and every Empty (but an Empty
# that is a parent, grouping the car's objects, which raycar would only list as unread), and a vehicle
# script skeleton from the scene's objects. Runs inside Blender (tested with Debian's 3.4):
#
#   blender -b car.blend --python tools/blender/export_raycar.py -- car.obj [--forward -y]
#
# Why not Blender's own File > Export > Wavefront (.obj): it writes no Empties, and raycar's
# helpers (wheel1_upper, eye_pos, ...) are most naturally Empties. Meshes are written as Blender's
# exporter writes them (one-vertex and two-vertex helper meshes included), in world coordinates,
# modifiers applied, object names alone (no "_MeshName" suffix). Empties become one vertex and a
# `p` point. Coordinates stay Blender's: the script says Z up, and forward is --forward (default
# -y: a model seen from Blender's Front view faces the viewer, towards -Y).
#
# The script (car.vehicle.toml beside the OBJ unless --script names it) has a [[hull]] record per
# hullN and a [[wheel]] record per wheelN / wheel_N, in order. Custom properties on those objects
# named like a record's keys (mass, flags, zoffset; driving, axle, len_max, stiffness, damping,
# ...) are copied; otherwise hull1 gets 1000 kg, other hulls 0, axles are numbered front to back
# from the wheels' positions, the axles behind the middle of the wheelbase drive (a car's rear
# axle, a 6x4 or 8x4 truck's two), and len_max is the helpers' rest length (wheelN_upper to
# wheelN_lower) plus 0.1 m of droop. A hull1 whose centroid lies outside the axles, where the car
# could not stand with its mass there, is said so in the script. An existing script is not
# overwritten unless --force is given.

import argparse
import os
import re
import sys

import bpy

HULL_KEYS = ("flags", "mass", "zoffset")
WHEEL_KEYS = ("driving", "axle", "len_max", "stiffness", "damping", "surface_id", "can_brake",
              "min_friction", "max_friction", "steering", "spin_inertia")
AXES = {"+x": (1, 0, 0), "-x": (-1, 0, 0), "+y": (0, 1, 0), "-y": (0, -1, 0), "+z": (0, 0, 1),
        "-z": (0, 0, -1)}


def arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="export_raycar.py")
    parser.add_argument("obj", help="the OBJ file to write")
    parser.add_argument("--script", help="the vehicle script to write (default: beside the OBJ)")
    parser.add_argument("--forward", default="-y", choices=[a for a in AXES if a[1] != "z"],
                        help="the car's forward axis in Blender's world (default -y)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing script")
    return parser.parse_args(argv)


def number(value):
    text = "%.6f" % value
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def write_obj(path, objects, depsgraph):
    lines = ["# raycar model written by raycar's blender/export_raycar.py from %s" %
             (os.path.basename(bpy.data.filepath) or "an unsaved scene")]
    first = 1  # OBJ vertex indices are global and 1-based
    for obj in objects:
        if obj.type == "EMPTY" and obj.children:
            continue  # a parent that groups the car's objects (car_root), not a helper
        if obj.type == "EMPTY":
            p = obj.matrix_world.translation
            lines += ["o %s" % obj.name, "v %s %s %s" % (number(p.x), number(p.y), number(p.z)),
                      "p %d" % first]
            first += 1
            continue
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        try:
            mesh.transform(obj.matrix_world)
            lines.append("o %s" % obj.name)
            for vertex in mesh.vertices:
                co = vertex.co
                lines.append("v %s %s %s" % (number(co.x), number(co.y), number(co.z)))
            # A mirrored (negative-scale) object's faces turn inside out: keep them facing out,
            # as the mass integrals need outward faces.
            flip = obj.matrix_world.determinant() < 0
            in_face = set()
            for polygon in mesh.polygons:
                indices = [first + i for i in polygon.vertices]
                if flip:
                    indices.reverse()
                lines.append("f " + " ".join(str(i) for i in indices))
                in_face.update(polygon.edge_keys)
            for edge in mesh.edges:
                if edge.key not in in_face:
                    lines.append("l %d %d" % (first + edge.vertices[0], first + edge.vertices[1]))
            first += len(mesh.vertices)
        finally:
            evaluated.to_mesh_clear()
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def part_number(name, pattern):
    # raycar reads an object's name without the spaces around it ("wheel3 " is wheel3): so do we.
    match = re.fullmatch(pattern, name.strip())
    return int(match.group(1)) if match else None


def numbered(objects, pattern):
    found = {}
    for obj in objects:
        n = part_number(obj.name, pattern)
        if n is not None:
            found[n] = obj
    parts = []
    n = 1
    while n in found:  # as raycar reads them: until the first missing number
        parts.append(found[n])
        n += 1
    return parts


def value_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(value, float):
        return number(value)
    return str(value)


def centre(obj, depsgraph):
    if obj.type != "MESH":
        return obj.matrix_world.translation.copy()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        points = [obj.matrix_world @ v.co for v in mesh.vertices]
    finally:
        evaluated.to_mesh_clear()
    if not points:
        return obj.matrix_world.translation.copy()
    return sum(points, points[0] * 0) / len(points)


def radius(obj):
    """Half the wheel's largest extent: near enough its radius for grouping axles."""
    if obj.type != "MESH":
        return 0.3
    return max(obj.dimensions) / 2


def rest_length(wheel, objects, depsgraph):
    """The distance between the wheel's helpers (its len_initial), or None without both."""
    n = part_number(wheel.name, r"wheel_?(\d+)")
    helpers = {}
    for obj in objects:
        for end in ("upper", "lower"):
            # As raycar reads them: wheelN_upper, or wheel_N_upper.
            if obj.name.strip() in ("wheel%d_%s" % (n, end), "wheel_%d_%s" % (n, end)):
                helpers[end] = obj
    if len(helpers) < 2:
        return None
    return (centre(helpers["upper"], depsgraph) - centre(helpers["lower"], depsgraph)).length


def write_script(path, obj_path, forward, hulls, wheels, objects, depsgraph):
    forward_vector = AXES[forward]
    # Axles front to back: wheels whose centres lie within a wheel radius along the car share one
    # (raycar's own rule for wheels of one axle).
    along = [sum(a * b for a, b in zip(centre(w, depsgraph), forward_vector)) for w in wheels]
    wheel_radius = max([radius(w) for w in wheels] or [0.3])
    order = sorted(set(round(a, 6) for a in along), reverse=True)
    axle_of, axles = {}, []
    for a in order:
        if not axles or axles[-1] - a > wheel_radius:
            axles.append(a)
        axle_of[a] = len(axles) - 1
    lines = ["# Vehicle script skeleton written by raycar's blender/export_raycar.py.",
             "# Tune it: the README's script reference lists every key.",
             "[model]",
             'obj = "%s"' % os.path.relpath(obj_path, os.path.dirname(os.path.abspath(path))),
             'up = "+z"',
             'forward = "%s"' % forward, ""]
    lines += ["# No [params], [engine] or [gearbox] sections: the engine, gearbox and brakes take the",
              "# script reference's defaults, a mid-size car's, and the chassis' inertia comes from the",
              "# hull parts' shapes. A heavier or lighter vehicle needs its own (engine_power, gears,",
              "# brake_torque, chassis_inertia, ...).", ""]
    # Where hull1's centroid lies along the car against its axles: with the whole mass there, a
    # cab over the front axle (a truck's) puts it ahead of every wheel, and the car cannot stand.
    hull_along = (sum(a * b for a, b in zip(centre(hulls[0], depsgraph), forward_vector))
                  if hulls and "mass" not in hulls[0].keys() else None)
    for i, hull in enumerate(hulls):
        lines.append("[[hull]]  # %s" % hull.name)
        if i == 0 and hull_along is not None and axles and not (axles[-1] < hull_along < axles[0]):
            ahead = hull_along >= axles[0]
            outside = hull_along - axles[0] if ahead else axles[-1] - hull_along
            lines.append("# hull1's centroid lies %s m %s axle: with the mass there the car cannot"
                         % (number(outside), "ahead of the front" if ahead else "behind the rear"))
            lines.append("# stand. Give the mass to a low ballast hull between the axles (mass 0 here).")
        values = {"flags": 1, "mass": 1000.0 if i == 0 else 0.0}
        for key in HULL_KEYS:
            if key in hull.keys():
                values[key] = hull[key]
        for key, value in values.items():
            # Spread through hull1's volume, the mass sits at hull1's centroid: a whole body's is
            # about half its height up, where a road car's is near 0.5 m, and a car that tall for
            # its track rolls over in a hard turn. A low ballast box (hull2 with the mass, hull1 0)
            # puts it where the car's is (README, "Make your own vehicle").
            comment = ("  # kg: the car's mass, at hull1's centroid (a low ballast hull puts it lower)"
                       if key == "mass" and i == 0 and "mass" not in hull.keys() else "")
            lines.append("%s = %s%s" % (key, value_text(value), comment))
        lines.append("")
    for wheel, a in zip(wheels, along):
        lines.append("[[wheel]]  # %s" % wheel.name)
        axle = axle_of[round(a, 6)]
        # The axles behind the middle of the wheelbase drive: a car's rear axle, a 6x4's tandem,
        # an 8x4's two rear axles behind its two steering ones (a single axle drives).
        driven = len(axles) == 1 or axles[axle] < (axles[0] + axles[-1]) / 2
        rest = rest_length(wheel, objects, depsgraph)
        values = {"axle": axle, "driving": 1 if driven else 0,
                  "len_max": round(rest + 0.1, 3) if rest is not None else 0.35}
        comments = {"len_max": "  # m: the helpers' rest length %s + 0.1 of droop" % number(rest)
                               if rest is not None else "  # m: no helpers to measure the rest length from"}
        for key in WHEEL_KEYS:
            if key in wheel.keys():
                values[key] = wheel[key]
                comments.pop(key, None)
        for key, value in values.items():
            lines.append("%s = %s%s" % (key, value_text(value), comments.get(key, "")))
        lines.append("")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))


def main():
    args = arguments()
    scene_objects = sorted((o for o in bpy.context.scene.objects if o.type in ("MESH", "EMPTY")),
                           key=lambda o: o.name)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_path = os.path.abspath(args.obj)
    write_obj(obj_path, scene_objects, depsgraph)
    hulls = numbered(scene_objects, r"hull(\d+)")
    wheels = numbered(scene_objects, r"wheel_?(\d+)")
    script_path = args.script or re.sub(r"\.obj$", "", obj_path) + ".vehicle.toml"
    if os.path.exists(script_path) and not args.force:
        print("export_raycar: %s exists; not overwritten (--force to replace it)" % script_path)
    else:
        write_script(script_path, obj_path, args.forward, hulls, wheels, scene_objects, depsgraph)
        print("export_raycar: wrote %s" % script_path)
    print("export_raycar: wrote %s (%d objects, %d hull parts, %d wheels)" %
          (obj_path, len(scene_objects), len(hulls), len(wheels)))
    if not hulls or not wheels:
        print("export_raycar: raycar needs objects named hull1, ... and wheel1, ...", file=sys.stderr)
        sys.exit(1)


main()
