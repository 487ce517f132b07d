/* layout.c - screen geometry: pure arithmetic on the terminal size. */
#include "layout.h"

static lay_rect rect(int y, int x, int h, int w)
{
    lay_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
    return r;
}

lay_screen layout_compute(int rows, int cols, int banner, int detail)
{
    lay_screen s = { 0 };
    if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
        s.too_small = 1;
        return s;
    }
    int y = 0;
    s.header = rect(y++, 0, 1, cols);
    s.tabs = rect(y++, 0, 1, cols);
    s.banner = rect(y, 0, banner ? 1 : 0, cols);
    y += s.banner.h;
    s.summary = rect(y++, 0, 1, cols);
    /* status and footer take the last two rows */
    s.status = rect(rows - 2, 0, 1, cols);
    s.footer = rect(rows - 1, 0, 1, cols);
    int body = rows - 2 - y;
    s.table = rect(y, 0, body, cols);
    if (detail) {
        if (cols >= LAYOUT_SIDE_DETAIL_COLS) {
            /* Wide: keep the table readable on the left, details on the right. */
            int dw = cols * 2 / 5;
            s.table.w = cols - dw;
            s.detail = rect(y, cols - dw, body, dw);
        } else {
            s.detail = s.table;
            s.table.h = 0;
            s.table.w = 0;
        }
    }
    return s;
}

int layout_table_data_rows(const lay_screen *s)
{
    return s->table.h > 1 ? s->table.h - 1 : 0;
}

static int total_width(const int *w, const int *on, size_t n)
{
    int sum = 0, shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (on[i]) {
            sum += w[i];
            shown++;
        }
    }
    return sum + (shown > 1 ? shown - 1 : 0);
}

size_t layout_columns(const int *want, const int *min, const int *drop, size_t ncols, int avail, int *out)
{
    int on[64];
    size_t n = ncols < 64 ? ncols : 64;
    for (size_t i = 0; i < ncols; i++)
        out[i] = 0;
    for (size_t i = 0; i < n; i++)
        on[i] = 1;
    /* Hide optional columns while the others would have to give up more
     * than half of their slack: a squeezed column is harder to read than
     * a missing one, but a column need not be hidden to save a cell. */
    int mid[64];
    for (size_t i = 0; i < n; i++)
        mid[i] = (want[i] + min[i] + 1) / 2;
    while (total_width(mid, on, n) > avail) {
        size_t victim = n;
        for (size_t i = 0; i < n; i++)
            if (on[i] && drop[i] > 0 && (victim == n || drop[i] >= drop[victim]))
                victim = i;
        if (victim == n)
            break;
        on[victim] = 0;
    }
    while (total_width(min, on, n) > avail) {
        size_t last = n;
        for (size_t i = 0; i < n; i++)
            if (on[i])
                last = i;
        if (last == n)
            return 0;
        on[last] = 0;
    }
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = on[i] ? want[i] : 0;
        shown += (size_t)on[i];
    }
    int excess = total_width(out, on, n) - avail;
    /* Shrink the widest shrinkable column one cell at a time so that no
     * single column is squeezed to nothing while others stay wide. */
    while (excess > 0) {
        size_t widest = n;
        for (size_t i = 0; i < n; i++)
            if (on[i] && out[i] > min[i] && (widest == n || out[i] > out[widest]))
                widest = i;
        if (widest == n)
            break;
        out[widest]--;
        excess--;
    }
    return shown;
}

lay_rect layout_center(int rows, int cols, int h, int w)
{
    if (h > rows - 2)
        h = rows - 2;
    if (w > cols - 4)
        w = cols - 4;
    return rect((rows - h) / 2, (cols - w) / 2, h, w);
}
