/// The report's inline stylesheet: light and dark themes, phone-friendly layout.
enum ReportStyle {
    static let css = """
        :root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d1f21;--muted:#5c6166;--card:#f1f2f4;--line:#d5d8dc;
        --sub:#c62828;--sub-bg:#fde2e1;--ins:#8a6d00;--ins-bg:#fff3b0;--del:#1b7a3a;--del-bg:#d9f2df;--hit:#3d6fb6;--accent:#2f5fa7}
        @media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e6e6;--muted:#a0a6ad;--card:#1f2226;--line:#3a3f45;
        --sub:#ff8a80;--sub-bg:#4a1f1f;--ins:#ffd54f;--ins-bg:#463a0c;--del:#7bd88f;--del-bg:#173d22;--hit:#8fb5ef;--accent:#8fb5ef}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif}
        main{max-width:1100px;margin:0 auto;padding:16px}
        h1{font-size:1.5rem;margin:.2em 0}h2{font-size:1.2rem;margin:1.6em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
        .muted{color:var(--muted)}
        .kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:10px}
        .kpi{background:var(--card);border-radius:10px;padding:10px 12px}
        .kpi .label{font-size:.8rem;color:var(--muted)}.kpi .value{font-size:1.5rem;font-weight:650;font-variant-numeric:tabular-nums}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
        th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
        th{font-size:.85rem;color:var(--muted);font-weight:600}
        td.num,th.num{text-align:right;white-space:nowrap}
        .badge{display:inline-block;border-radius:6px;padding:0 6px;font-size:.8rem;border:1px solid var(--line);white-space:nowrap}
        .badge.merged{border-color:var(--accent);color:var(--accent)}.badge.missed{border-color:var(--del);color:var(--del)}
        .badge.extra{border-color:var(--ins);color:var(--ins)}
        .diff{line-height:2.1;word-break:break-word}
        .diff span{padding:1px 3px;border-radius:4px}
        .sub{background:var(--sub-bg);color:var(--sub);text-decoration:underline wavy;text-underline-offset:3px}
        .sub .was{text-decoration:line-through;opacity:.8}
        ins.ins{background:var(--ins-bg);color:var(--ins);text-decoration:underline double;text-underline-offset:3px}
        del.del{background:var(--del-bg);color:var(--del);text-decoration:line-through}
        .sym{font-weight:700;margin-right:1px}
        .legend{display:flex;flex-wrap:wrap;gap:8px 16px;margin:.5em 0;font-size:.9rem}
        pre{white-space:pre-wrap;word-break:break-word;background:var(--card);padding:10px;border-radius:8px;font-size:.9rem}
        svg text{fill:var(--fg);font-size:12px}
        details summary{cursor:pointer;font-weight:600}
        dl.conditions{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px}dl.conditions dt{color:var(--muted)}dl.conditions dd{margin:0;overflow-wrap:anywhere}
        @media (max-width:600px){main{padding:10px}.kpi .value{font-size:1.25rem}th,td{padding:4px 5px;font-size:.9rem}}
        """
}
