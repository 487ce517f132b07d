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

size_t layout_columns(const int *want, const int *min, size_t ncols, int avail, int *out)
{
    size_t shown = ncols;
    for (;;) {
        int need_min = 0, need_want = 0;
        for (size_t i = 0; i < shown; i++) {
            need_min += min[i] + (i ? 1 : 0);
            need_want += want[i] + (i ? 1 : 0);
        }
        if (shown == 0) {
            for (size_t i = 0; i < ncols; i++)
                out[i] = 0;
            return 0;
        }
        if (need_min > avail) {
            shown--;
            continue;
        }
        for (size_t i = 0; i < ncols; i++)
            out[i] = i < shown ? want[i] : 0;
        int excess = need_want - avail;
        /* Shrink the widest shrinkable column one cell at a time so that no
         * single column is squeezed to nothing while others stay wide. */
        while (excess > 0) {
            size_t widest = shown;
            for (size_t i = 0; i < shown; i++)
                if (out[i] > min[i] && (widest == shown || out[i] > out[widest]))
                    widest = i;
            if (widest == shown)
                break;
            out[widest]--;
            excess--;
        }
        /* Any room left goes to the last column so rows reach the edge. */
        if (excess < 0)
            out[shown - 1] += -excess;
        return shown;
    }
}

lay_rect layout_center(int rows, int cols, int h, int w)
{
    if (h > rows - 2)
        h = rows - 2;
    if (w > cols - 4)
        w = cols - 4;
    return rect((rows - h) / 2, (cols - w) / 2, h, w);
}
