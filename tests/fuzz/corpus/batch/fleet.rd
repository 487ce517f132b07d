# a small script
account show default
account create bob --role viewer
account deposit bob 12.5
node list --region dc
node show n1
metrics show n1 --metric gpu_temp_c --gpu 1 --since 2026-11-24T10:00:00Z
job submit tests/specs/minimal-ok.yaml --project default
job list --state waiting_gpus
ledger balance default
help account deposit
