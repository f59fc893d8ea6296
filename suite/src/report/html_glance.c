/* SPDX-License-Identifier: Apache-2.0 */
/* The contract at a glance (HTML). */
#include "html_glance.h"

#include "text_util.h"

void html_glance_style(FILE *f)
{
    fputs(".glance{margin:.6em 0}.glance .strip{display:flex;flex-wrap:wrap;gap:3px;"
          "align-items:center;margin:.25em 0}.glance .strip>b{width:5.5em;font-size:.85em}"
          ".glance a.cell{display:inline-block;min-width:2.6em;padding:.25em 0;text-align:center;"
          "font:12px/1.2 ui-monospace,monospace;text-decoration:none;color:#111;"
          "border-radius:3px;border:1px solid rgba(0,0,0,.15)}"
          ".glance .gap{width:.6em}"
          ".cell.pass{background:#7ccf8a}.cell.fail{background:#e5534b;color:#fff}"
          ".cell.incomplete{background:#f2cc60}.cell.untested{background:#ddd;color:#666}"
          ".cell.absent{background:#fff;color:#999;border-style:dashed}"
          ".legend span.cell{display:inline-block;width:1.2em;height:1em;vertical-align:middle;"
          "border-radius:3px;border:1px solid rgba(0,0,0,.15);margin:0 .3em 0 1em}",
          f);
}

static void strip(FILE *f, const char *name, const struct glance_cell *cells, size_t n, bool should,
                  const char *anchor_prefix)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += cells[i].should == should;
    if (!count) return;
    fprintf(f, "<div class=\"strip %s\"><b>%s</b>", should ? "should" : "must", name);
    char group = 0;
    for (size_t i = 0; i < n; i++) {
        const struct glance_cell *c = &cells[i];
        if (c->should != should) continue;
        if (group && c->id[0] != group) fputs("<span class=\"gap\"></span>", f);
        group = c->id[0];
        fprintf(f, "<a class=\"cell %s\" data-clause=\"", c->status);
        text_write_xml(f, c->id);
        fprintf(f, "\" href=\"#%s", anchor_prefix);
        text_write_xml(f, c->id);
        fputs("\" title=\"", f);
        text_write_xml(f, c->id);
        fprintf(f, " (%s): ", c->status);
        text_write_xml(f, c->text ? c->text : "");
        fputs("\">", f);
        text_write_xml(f, c->id);
        fputs("</a>", f);
    }
    fputs("</div>\n", f);
}

void html_glance_grid(FILE *f, const char *label, const struct glance_cell *cells, size_t n,
                      const char *anchor_prefix)
{
    fputs("<div class=\"glance\">", f);
    if (label) {
        fputs("<div><b>", f);
        text_write_xml(f, label);
        fputs("</b></div>", f);
    }
    fputc('\n', f);
    strip(f, "MUST", cells, n, false, anchor_prefix);
    strip(f, "SHOULD", cells, n, true, anchor_prefix);
    fputs("</div>\n", f);
}

void html_glance_legend(FILE *f)
{
    fputs("<p class=\"legend\"><span class=\"cell pass\"></span>every case passed"
          "<span class=\"cell fail\"></span>a case failed, timed out or errored"
          "<span class=\"cell incomplete\"></span>some cases skipped or not run"
          "<span class=\"cell untested\"></span>no case"
          "<span class=\"cell absent\"></span>not in this run</p>\n",
          f);
}
