#!/usr/bin/env python3
"""Runs `pmworker --tiers t3 --export anim` on every animated `.max` of ../shared/corpus/pairs and every
rig of ../shared/corpus/biped (each with its corpus as --reference, the .anim written under
target/nel_anim_sweep/), then prints one line per export and per nel-anim verdict, and the totals
docs/exporters.md quotes: files, .anim written, round trips identical, verdicts by part and kind.
Usage (from the workspace root, after `cargo build -p pmworker`): python3 scripts/nel_anim_sweep.py"""
import csv, subprocess, json, os, collections
W=os.path.abspath('target/debug/pmworker')
S=os.path.abspath('../shared/corpus')
jobs=[]
for folder,flt in (('pairs',lambda r:r['animated']=='yes'),('biped',lambda r:True)):
    rows=list(csv.DictReader(open(f'{S}/{folder}/manifest.tsv'),delimiter='\t'))
    seen=set()
    for r in rows:
        if not flt(r) or r['max'] in seen: continue
        seen.add(r['max']); jobs.append((folder,r['max']))
res=collections.Counter(); written=0; rt=0; lines=[]
for folder,m in jobs:
    out=os.path.abspath(f'target/nel_anim_sweep/{folder}')
    p=subprocess.run([W,m,'--tiers','t3','--export','anim','--reference','.','--out',out],cwd=f'{S}/{folder}',capture_output=True,text=True,timeout=600)
    for l in p.stdout.splitlines():
        e=json.loads(l)
        if e['event']=='export' and e['exporter']=='anim':
            if e['status']=='ok': written+=1
            sm=e.get('summary',{})
            lines.append(f"{folder}\t{m}\texport {e['status']} tracks {sm.get('tracks')} unsupported {len(sm.get('unsupported',[]))} sel {sm.get('selection')}")
        if e['event']=='result' and e['stream'].startswith('nel-anim'):
            part='structure' if 'structure' in e['stream'] else 'values'
            if part=='structure' and e.get('detail',{}) and e['detail'].get('round_trip')=='identical': rt+=1
            cls=e.get('kind') or (e.get('reason','').split(':')[0] if e['verdict']=='skip' else '')
            res[(folder,part,e['verdict'],cls)]+=1
            lines.append(f"{folder}\t{m}\t{e['stream']}\t{e['verdict']}\t{cls}\t{(e.get('message') or e.get('reason') or e.get('note') or '')[:160]}")
print('\n'.join(lines))
print('files',len(jobs),'written',written,'round-trip identical',rt)
for k,v in sorted(res.items()): print(k,v)
