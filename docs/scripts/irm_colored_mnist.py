# The IRM paper's ColoredMNIST construction and IRMv1 recipe (Arjovsky et al.
# 2019, colored_mnist/main.py: hidden 390, Adam lr 4.898e-4, L2 1.1079e-3,
# penalty 91257.19 after 190 steps, 501 full-batch steps), written out for a
# reference run on Debian's torch (python3-torch), MNIST read from the gzip
# IDX files. One restart; prints train and test accuracy every 50 steps.
#
#   python3 docs/scripts/irm_colored_mnist.py ../shared/data/mnist SEED SPLIT
#
# SPLIT says how the 50000 training images are split into the two
# environments: shuffle (the IRM code: np.random.shuffle, then [::2] and
# [1::2]), parity (no shuffle: even and odd MNIST index, maple's
# construction before --cmnist-envs), or subset45 (no shuffle, a seeded
# 45000-image subset, then alternate: a random split by another route).
# maple's developers ran it (at commit ec0c41f) to find why maple's IRMv1
# baseline stayed on colour: see docs/results/archive/README.md,
# "ColoredMNIST as the IRM code builds it".
import gzip, sys, numpy as np, torch
from torch import nn, optim, autograd

torch.set_num_threads(1)
d, seed, split = sys.argv[1], int(sys.argv[2]), sys.argv[3]
torch.manual_seed(seed)
np.random.seed(seed)


def idx(path, off):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=off)


X = idx(d + "/train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28)[:60000].copy()
Y = idx(d + "/train-labels-idx1-ubyte.gz", 8)[:60000].astype(np.int64)
train, test = (X[:50000], Y[:50000]), (X[50000:], Y[50000:])
if split == "shuffle":
    state = np.random.get_state()
    np.random.shuffle(train[0])
    np.random.set_state(state)
    np.random.shuffle(train[1])
elif split == "subset45":
    keep = np.sort(np.random.RandomState(7).permutation(50000)[:45000])
    train = (train[0][keep], train[1][keep])
elif split != "parity":
    sys.exit("SPLIT: want shuffle, parity or subset45")
print("mean ink of the two environments: %.4f %.4f" % (train[0][::2].mean() / 255, train[0][1::2].mean() / 255))


def make_environment(images, labels, e):
    images, labels = torch.from_numpy(images), torch.from_numpy(labels)
    def bern(p, n): return (torch.rand(n) < p).float()
    def xor(a, b): return (a - b).abs()
    images = images.reshape((-1, 28, 28))[:, ::2, ::2]
    labels = xor((labels < 5).float(), bern(0.25, len(labels)))
    colors = xor(labels, bern(e, len(labels)))
    images = torch.stack([images, images], dim=1)
    images[torch.arange(len(images)), (1 - colors).long(), :, :] *= 0
    return {"images": images.float() / 255.0, "labels": labels[:, None]}


envs = [make_environment(train[0][::2], train[1][::2], 0.2),
        make_environment(train[0][1::2], train[1][1::2], 0.1),
        make_environment(test[0], test[1], 0.9)]

lin1, lin2, lin3 = nn.Linear(2 * 14 * 14, 390), nn.Linear(390, 390), nn.Linear(390, 1)
for lin in (lin1, lin2, lin3):
    nn.init.xavier_uniform_(lin.weight)
    nn.init.zeros_(lin.bias)
mlp = nn.Sequential(lin1, nn.ReLU(True), lin2, nn.ReLU(True), lin3)


def nll(logits, y): return nn.functional.binary_cross_entropy_with_logits(logits, y)
def acc(logits, y): return (((logits > 0).float() - y).abs() < 1e-2).float().mean()


def penalty(logits, y):
    scale = torch.tensor(1.0).requires_grad_()
    g = autograd.grad(nll(logits * scale, y), [scale], create_graph=True)[0]
    return torch.sum(g ** 2)


opt = optim.Adam(mlp.parameters(), lr=0.0004898536566546834)
for step in range(501):
    for env in envs:
        logits = mlp(env["images"].view(-1, 2 * 14 * 14))
        env["nll"], env["acc"], env["penalty"] = nll(logits, env["labels"]), acc(logits, env["labels"]), penalty(logits, env["labels"])
    train_nll = torch.stack([envs[0]["nll"], envs[1]["nll"]]).mean()
    train_acc = torch.stack([envs[0]["acc"], envs[1]["acc"]]).mean()
    train_penalty = torch.stack([envs[0]["penalty"], envs[1]["penalty"]]).mean()
    weight_norm = sum(w.norm().pow(2) for w in mlp.parameters())
    loss = train_nll + 0.0011079456888570485 * weight_norm
    pw = 91257.18613115903 if step >= 190 else 1.0
    loss = loss + pw * train_penalty
    if pw > 1.0:
        loss = loss / pw
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0 or step == 500:
        print(step, "train acc %.4f test acc %.4f" % (train_acc.item(), envs[2]["acc"].item()), flush=True)
