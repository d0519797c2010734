# Turns a dump of the MAPLE code's first outer iteration (its ColoredMNIST
# tensors and initial parameters, written by the instrumented run that the
# README's "Side by side with the authors' code" describes) into maple
# inputs for its reproduction mode:
#   OUT/features.npy     70000 x 392 float32: the code's 50000 training
#                        images, its 10000 test images as the validation
#                        split, the same 10000 as the test split
#   OUT/annotations.csv  label, env, group (2*label + colour), split, id
#   OUT/init.npy         the model's initial parameters in maple's layout
#                        (per layer the in x out weights row by row, then
#                        the biases; torch stores out x in)
#
#   python3 docs/scripts/authors_dump_to_features.py DUMP OUT
#   maple run --dataset features --features OUT/features.npy \
#     --csv OUT/annotations.csv --init-params OUT/init.npy \
#     --recipe maple-reference --model mlp:390,390 ...
import os, sys, numpy as np

dump, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
ld = lambda n: np.load(os.path.join(dump, n + ".npy"))
tx, ty, tg, tc = ld("train_x"), ld("train_y"), ld("train_g"), ld("train_c")
sx, sy, sc = ld("test_x"), ld("test_y"), ld("test_c")
np.save(os.path.join(out, "features.npy"), np.concatenate([tx, sx, sx]).astype(np.float32))

def colour(y, c):  # c = 1: the colour agrees with the label
    return np.where(c > 0.5, y, 1 - y).astype(int)

with open(os.path.join(out, "annotations.csv"), "w") as f:
    f.write("label,env,group,split,id\n")
    rows = [(ty, tg.astype(int), colour(ty, tc), "train", 0),
            (sy, np.full(len(sy), 2), colour(sy, sc), "val", 50000),
            (sy, np.full(len(sy), 2), colour(sy, sc), "test", 50000)]
    for y, g, col, split, base in rows:
        for i in range(len(y)):
            f.write("%d,%d,%d,%s,%d\n" % (y[i], g[i], 2 * int(y[i]) + col[i], split, base + i))

p, dims, flat, off = ld("init"), [392, 390, 390, 1], [], 0
for a, b in zip(dims, dims[1:]):
    flat.append(p[off:off + a * b].reshape(b, a).T.ravel())
    flat.append(p[off + a * b:off + a * b + b])
    off += a * b + b
assert off == len(p)
np.save(os.path.join(out, "init.npy"), np.concatenate(flat).astype(np.float32))
print("wrote", out)
