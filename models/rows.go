package models

import "github.com/maple-ood/maple/nets"

// RowsModel is a Model that reads its input through a list of row
// indices, gathering one chunk of rows at a time (nets.Net): a pass over
// a subset of a large matrix then copies one chunk, not the subset. Its
// results are the same bits as the plain pass over the rows gathered.
type RowsModel[T nets.Float] interface {
	ForwardRows(theta, x []T, rows []int, logits []T)
	BackpropRows(theta, x []T, rows []int, fill func(lo, hi int, logits, cot []T), grad []T)
	JVPRows(theta, x []T, rows []int, dir, logits, tan []T)
}

// Rows runs a model's passes over a list of rows of a row-major matrix
// of D columns: through the model's own Rows passes where it has them,
// else over a copy of the rows gathered whole, into a buffer kept for the
// next call. The zero value with M and D set is ready.
type Rows[T nets.Float] struct {
	M   Model[T]
	D   int
	buf []T
}

// gather copies the rows of x into the buffer.
func (r *Rows[T]) gather(x []T, rows []int) []T {
	d := r.D
	if cap(r.buf) < len(rows)*d {
		r.buf = make([]T, len(rows)*d)
	}
	r.buf = r.buf[:len(rows)*d]
	for j, i := range rows {
		copy(r.buf[j*d:(j+1)*d], x[i*d:(i+1)*d])
	}
	return r.buf
}

// Forward writes the logits of the rows of x.
func (r *Rows[T]) Forward(theta, x []T, rows []int, logits []T) {
	if m, ok := r.M.(RowsModel[T]); ok {
		m.ForwardRows(theta, x, rows, logits)
		return
	}
	r.M.Forward(theta, r.gather(x, rows), len(rows), logits)
}

// Backprop is Model.Backprop over the rows of x (fill sees positions in
// rows).
func (r *Rows[T]) Backprop(theta, x []T, rows []int, fill func(lo, hi int, logits, cot []T), grad []T) {
	if m, ok := r.M.(RowsModel[T]); ok {
		m.BackpropRows(theta, x, rows, fill, grad)
		return
	}
	r.M.Backprop(theta, r.gather(x, rows), len(rows), fill, grad)
}

// JVP is Model.JVP over the rows of x.
func (r *Rows[T]) JVP(theta, x []T, rows []int, dir, logits, tan []T) {
	if m, ok := r.M.(RowsModel[T]); ok {
		m.JVPRows(theta, x, rows, dir, logits, tan)
		return
	}
	r.M.JVP(theta, r.gather(x, rows), len(rows), dir, logits, tan)
}

// Release drops a model's work buffers where it has a Release method
// (nets.Net): for a model done with its passes while another trains.
func Release[T nets.Float](m Model[T]) {
	if r, ok := m.(interface{ Release() }); ok {
		r.Release()
	}
}

// FitData sets a model's work budget for a training matrix of the given
// number of values (nets.BudgetFor) where it has one (nets.Net): beside
// data of more than nets.LargeData values its work buffers shrink.
func FitData[T nets.Float](m Model[T], values int) {
	if b, ok := m.(interface{ SetWorkBudget(int) }); ok {
		b.SetWorkBudget(nets.BudgetFor(values))
	}
}
