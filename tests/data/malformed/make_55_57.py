# Writes 55.obj, 56.obj and 57.obj from ../base/car.obj (run here: python3 make_55_57.py): a box as
# wheel1, wheel1's helpers 0.3 m outboard along its axle, and wheel1 holding its mirror image too.
import sys
base=open('../base/car.obj').read().splitlines()
def parse(lines):
    objs=[]; first=1; cur=None
    for l in lines:
        if l.startswith('o '):
            cur=[l[2:].strip(),[],[]]; objs.append(cur)
        elif cur is not None and l.startswith('v '):
            cur[1].append(l)
    # elements with local indices
    g=1; cur=None; starts={}
    for o in objs: starts[o[0]]=g; g+=len(o[1])
    for l in lines:
        if l.startswith('o '): cur=[o for o in objs if o[0]==l[2:].strip()][0]
        elif cur is not None and l.split()[:1] and l.split()[0] in ('f','p','l'):
            cur[2].append((l.split()[0],[int(x)-starts[cur[0]] for x in l.split()[1:]]))
    return objs
def write(path, objs, comment):
    out=['# raycar test fixture: '+comment]; first=1
    for name, verts, elems in objs:
        out.append('o '+name); out+=verts
        for k,idx in elems: out.append(k+' '+' '.join(str(first+i) for i in idx))
        first+=len(verts)
    open(path,'w').write('\n'.join(out)+'\n')
def get(objs,name): return [o for o in objs if o[0]==name][0]
# 55: wheel1 a box 0.66 x 0.66 m, 0.22 m wide, around its centre (-0.8, 1.3, 0.33)
o=parse(base); w=get(o,'wheel1')
w[1]=['v %.4f %.4f %.4f'%(x,y,z) for x in (-0.91,-0.69) for y in (0.97,1.63) for z in (0.0,0.66)]
w[2]=[('f',list(f)) for f in [(0,1,3,2),(4,6,7,5),(0,4,5,1),(2,3,7,6),(0,2,6,4),(1,5,7,3)]]
write('55.obj',o,'wheel1 a 0.66 m box')
# 56: wheel1's helpers 0.3 m outboard along the axle
o=parse(base)
for n in ('wheel1_upper','wheel1_lower'):
    h=get(o,n); h[1]=[l.replace('v -0.8000','v -1.1000') for l in h[1]]
write('56.obj',o,'wheel1 helpers 0.3 m outboard along the axle')
# 57: wheel1 holds its mirror image across the car too
o=parse(base); w=get(o,'wheel1'); n=len(w[1])
w[1]=w[1]+['v %.4f %s %s'%(-float(l.split()[1]),l.split()[2],l.split()[3]) for l in w[1]]
w[2]=w[2]+[(k,[i+n for i in reversed(idx)]) for k,idx in w[2]]
write('57.obj',o,'wheel1 holds two wheels, mirrored across the car')
