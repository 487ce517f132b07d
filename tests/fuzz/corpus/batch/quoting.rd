account create 'a b' --role=member
account set alice --role "op\"erator"
region create x\ y --provider physical --storage local
price set a100 -- -1
alert rule add hot --metric gpu_temp_c --above 9e16 --for 5m
report usage --since 2026-11-23T00:00:00Z --until 2026-11-24T00:00:00Z --by node
unterminated 'quote
