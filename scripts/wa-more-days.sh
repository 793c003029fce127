#!/usr/bin/env bash
# FuelWatch days after May 2026 (docs/BACKTEST.md, "Perth after May"): from a clone of the public collector's repository
# (github.com/ayrea/wa-fuel-info, whose app/public/data/ keeps a rolling month of site-API days), every day file's last
# version in its git history, gzipped as ../shared/realdata/wa_fuelwatch_api_daily_snapshots/ holds them, with a MANIFEST.tsv
# of the same columns. Days up to AFTER (default 2026-05-31, the last realdata day) are left out. Not committed: the data
# is the state's. Then: fuelprice import wa-history OUT/ (beside the realdata folder's files, as one folder of links).
# Usage: scripts/wa-more-days.sh GIT_DIR OUT [AFTER]
set -euo pipefail
git_dir=$1 out=$2 after=${3:-2026-05-31}
mkdir -p "$out"
declare -A last
# Oldest commit first, so each path ends with its newest blob.
for commit in $(git --git-dir="$git_dir" rev-list --reverse HEAD -- app/public/data); do
  while IFS=$'\t' read -r meta path; do
    case $path in app/public/data/20??-??-??_*.json) last[$path]="$commit ${meta##* }" ;; esac
  done < <(git --git-dir="$git_dir" ls-tree "$commit" app/public/data/)
done
printf 'file\toriginal_path\tcommit\tgit_blob_sha1\tuncompressed_bytes\n' > "$out/MANIFEST.tsv"
for path in $(printf '%s\n' "${!last[@]}" | sort); do
  name=${path##*/}
  [[ ${name:0:10} > $after ]] || continue
  read -r commit blob <<< "${last[$path]}"
  git --git-dir="$git_dir" cat-file blob "$blob" | gzip -n > "$out/$name.gz"
  printf '%s.gz\t%s\t%s\t%s\t%s\n' "$name" "$path" "$commit" "$blob" "$(git --git-dir="$git_dir" cat-file -s "$blob")" >> "$out/MANIFEST.tsv"
done
echo "$(($(wc -l < "$out/MANIFEST.tsv") - 1)) day files written to $out"
