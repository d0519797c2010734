# Writes a run's per-iterate evaluation (--eval-each-iter) as CSV: per
# outer iteration the keep fraction, the search model's validation
# worst-group accuracy (what selects the iterate), the iterate maple had
# selected by then, the evaluation model's figures at its
# validation-selected step, and the reference protocol's and the last
# step's test accuracy (both oracle/no selection, for reference only).
# A run without --eval-each-iter leaves the evaluation's columns empty.
#   python3 docs/scripts/iter_evals.py RUN_DIR > out.csv
import json, sys

def r4(x):
    return "" if x is None else round(x, 4)

print("iter,keep_frac,search_val_worst,selected_iter,eval_step,eval_val_worst,eval_test_acc,eval_test_worst,reference_protocol_test,last_step_test")
for line in open(sys.argv[1] + "/metrics.jsonl"):
    d = json.loads(line)
    e = d.get("iter_eval") or {}
    r = (e.get("reference_protocol") or {}).get("test_acc", "")
    l = (e.get("last_step") or {}).get("test_acc", "")
    print(",".join(str(x) for x in [d["iter"], round(d["keep_frac"], 4), round(d["val_worst_group_acc"], 4), d.get("selected_iter", ""),
        e.get("selected_step", ""), r4(e.get("val_worst_group_acc")), e.get("test_acc", ""), r4(e.get("test_worst_group_acc")), r, l]))
