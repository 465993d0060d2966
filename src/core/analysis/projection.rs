//! Principal components: a set of vectors seen flat, on the two directions along which they
//! spread the most, for the picture of a sentence's vectors.
//!
//! The projection is exact: each vector's coordinates are its dot products with the two unit
//! axes (in f64), so identical vectors land on the very same point, and the share of the
//! spread each axis holds says how much the flat picture leaves out.

use ndarray::{Array1, Array2, ArrayView1};

/// Sweeps of the Jacobi method at most; it converges in well under 20 for any size we use.
const MAX_SWEEPS: usize = 60;

/// Variance below this fraction of the total counts as none (rounding, not spread).
const NEGLIGIBLE: f64 = 1e-12;

/// A set of vectors on their top two principal axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// Each vector's coordinates on the first and second axis, in the order given.
    pub points: Vec<[f64; 2]>,
    /// The share of the total variance each axis holds (0 to 1; 0 for an axis along which
    /// the vectors do not spread at all).
    pub explained: [f64; 2],
    /// The vectors' mean, which the axes pass through.
    pub mean: Array1<f64>,
    /// The two axes, unit vectors; an axis with no variance is all zeros.
    pub axes: [Array1<f64>; 2],
}

impl Projection {
    /// The coordinates of another vector in this projection's plane.
    #[must_use]
    pub fn place(&self, vector: ArrayView1<f32>) -> [f64; 2] {
        let centred: Array1<f64> = vector
            .iter()
            .zip(self.mean.iter())
            .map(|(&value, &mean)| f64::from(value) - mean)
            .collect();
        [centred.dot(&self.axes[0]), centred.dot(&self.axes[1])]
    }
}

/// Projects vectors of one width onto their top two principal axes.
///
/// The axes are fitted to the distinct vectors (a repeated vector counts once, as it is one
/// dot in the picture). Each axis's sign is fixed so that its largest component (the first
/// of equals) is positive, so the same vectors always give the same picture. `None` when
/// there are no vectors or their widths differ.
#[must_use]
pub fn principal_plane(vectors: &[ArrayView1<f32>]) -> Option<Projection> {
    let dims = vectors.first()?.len();
    if dims == 0 || vectors.iter().any(|vector| vector.len() != dims) {
        return None;
    }
    let distinct = distinct(vectors);
    let count = distinct.len();
    #[expect(clippy::cast_precision_loss, reason = "a few hundred vectors")]
    let mean: Array1<f64> = (0..dims)
        .map(|dim| distinct.iter().map(|v| f64::from(v[dim])).sum::<f64>() / count as f64)
        .collect();
    let centred = Array2::from_shape_fn((count, dims), |(row, dim)| {
        f64::from(distinct[row][dim]) - mean[dim]
    });
    let total: f64 = centred.iter().map(|value| value * value).sum();
    let mut axes = top_axes(&centred);
    let mut explained = [0.0; 2];
    for (axis, share) in axes.iter_mut().zip(&mut explained) {
        let spread: f64 = centred
            .rows()
            .into_iter()
            .map(|row| row.dot(axis).powi(2))
            .sum();
        if total <= 0.0 || spread <= NEGLIGIBLE * total {
            axis.fill(0.0);
        } else {
            *share = spread / total;
            orient(axis);
        }
    }
    let mut projection = Projection {
        points: Vec::new(),
        explained,
        mean,
        axes,
    };
    projection.points = vectors.iter().map(|&v| projection.place(v)).collect();
    Some(projection)
}

/// The vectors with repeats (equal bit for bit) left out, in first-seen order.
fn distinct<'a>(vectors: &[ArrayView1<'a, f32>]) -> Vec<ArrayView1<'a, f32>> {
    let mut seen: Vec<Vec<u32>> = Vec::new();
    let mut kept = Vec::new();
    for &vector in vectors {
        let bits: Vec<u32> = vector.iter().map(|value| value.to_bits()).collect();
        if !seen.contains(&bits) {
            seen.push(bits);
            kept.push(vector);
        }
    }
    kept
}

/// The two unit directions of greatest spread of the rows of `centred` (count × dims).
///
/// Works on the smaller of the two square matrices: the covariance (dims × dims) when the
/// vectors are few and narrow, else the Gram matrix (count × count), whose eigenvectors map
/// back to the same axes through `centredᵀ`.
fn top_axes(centred: &Array2<f64>) -> [Array1<f64>; 2] {
    let (count, dims) = centred.dim();
    let normalised = |mut axis: Array1<f64>| {
        let length = axis.dot(&axis).sqrt();
        if length > 0.0 {
            axis /= length;
        }
        axis
    };
    // Either way the eigenvectors come largest first; a missing second one is no axis.
    let (vectors, from_gram) = if dims <= count {
        (symmetric_eigen(centred.t().dot(centred)).1, false)
    } else {
        (symmetric_eigen(centred.dot(&centred.t())).1, true)
    };
    let axis = |index: usize| {
        if index >= vectors.ncols() {
            Array1::zeros(dims)
        } else if from_gram {
            normalised(centred.t().dot(&vectors.column(index)))
        } else {
            normalised(vectors.column(index).to_owned())
        }
    };
    [axis(0), axis(1)]
}

/// Eigenvalues (largest first) and eigenvectors (as columns, in the same order) of a
/// symmetric matrix, by cyclic Jacobi rotations.
fn symmetric_eigen(mut matrix: Array2<f64>) -> (Vec<f64>, Array2<f64>) {
    let size = matrix.nrows();
    let mut vectors = Array2::<f64>::eye(size);
    let scale: f64 = matrix.iter().map(|value| value * value).sum::<f64>().sqrt();
    for _ in 0..MAX_SWEEPS {
        let off: f64 = (0..size)
            .flat_map(|i| (0..size).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| matrix[[i, j]].powi(2))
            .sum::<f64>()
            .sqrt();
        if off <= f64::EPSILON * scale.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..size {
            for q in p + 1..size {
                let apq = matrix[[p, q]];
                if apq == 0.0 {
                    continue;
                }
                let theta = (matrix[[q, q]] - matrix[[p, p]]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + theta.hypot(1.0));
                let c = 1.0 / t.hypot(1.0);
                let s = t * c;
                for k in 0..size {
                    let (akp, akq) = (matrix[[k, p]], matrix[[k, q]]);
                    matrix[[k, p]] = c * akp - s * akq;
                    matrix[[k, q]] = s * akp + c * akq;
                }
                for k in 0..size {
                    let (apk, aqk) = (matrix[[p, k]], matrix[[q, k]]);
                    matrix[[p, k]] = c * apk - s * aqk;
                    matrix[[q, k]] = s * apk + c * aqk;
                }
                for k in 0..size {
                    let (vkp, vkq) = (vectors[[k, p]], vectors[[k, q]]);
                    vectors[[k, p]] = c * vkp - s * vkq;
                    vectors[[k, q]] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..size).collect();
    order.sort_by(|&a, &b| matrix[[b, b]].total_cmp(&matrix[[a, a]]));
    let values = order.iter().map(|&index| matrix[[index, index]]).collect();
    let sorted = Array2::from_shape_fn((size, size), |(row, column)| vectors[[row, order[column]]]);
    (values, sorted)
}

/// Flips an axis so that its largest component (the first of equals) is positive.
fn orient(axis: &mut Array1<f64>) {
    let mut largest = 0.0f64;
    let mut sign = 1.0;
    for &value in axis.iter() {
        if value.abs() > largest.abs() {
            largest = value;
            sign = value.signum();
        }
    }
    if sign < 0.0 {
        axis.mapv_inplace(|value| -value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, arr1};

    fn views(vectors: &[Array1<f32>]) -> Vec<ArrayView1<'_, f32>> {
        vectors.iter().map(|vector| vector.view()).collect()
    }

    fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
        (a[0] - b[0]).hypot(a[1] - b[1])
    }

    #[test]
    #[expect(clippy::float_cmp, reason = "identical vectors land on the same bits")]
    fn identical_vectors_land_on_one_point() {
        let fox = arr1(&[1.2753f32, -0.2010, -0.1606]);
        let vectors = [
            fox.clone(),
            arr1(&[-1.1589, 0.3255, -0.6315]),
            arr1(&[0.3374, -0.1778, -0.1690]),
            fox,
        ];
        let projection = principal_plane(&views(&vectors)).unwrap();
        assert_eq!(projection.points[0], projection.points[3], "bit for bit");
        assert_ne!(projection.points[0], projection.points[1]);
        // Three distinct points in 3-D lie in a plane: nothing is lost.
        let total = projection.explained[0] + projection.explained[1];
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(projection.explained[0] >= projection.explained[1]);
    }

    #[test]
    fn a_flat_set_keeps_its_shape() {
        // Points in 2-D: the projection is a rotation or reflection, so distances are kept.
        let vectors = [
            arr1(&[0.0f32, 0.0]),
            arr1(&[3.0, 0.0]),
            arr1(&[0.0, 1.0]),
            arr1(&[2.0, 2.5]),
        ];
        let projection = principal_plane(&views(&vectors)).unwrap();
        for i in 0..4 {
            for j in 0..4 {
                let original = f64::from(
                    (&vectors[i] - &vectors[j])
                        .iter()
                        .map(|x| x * x)
                        .sum::<f32>()
                        .sqrt(),
                );
                let projected = distance(projection.points[i], projection.points[j]);
                assert!((original - projected).abs() < 1e-6, "{i} {j}");
            }
        }
    }

    #[test]
    fn a_set_in_a_plane_of_a_wider_space_keeps_its_shape() {
        // Wider than the points are many: the Gram path. All in the plane of d0 and d5.
        let vector = |a: f32, b: f32| {
            let mut v = Array1::<f32>::zeros(8);
            v[0] = a;
            v[5] = b;
            v
        };
        let vectors = [vector(1.0, 2.0), vector(-1.0, 0.5), vector(0.0, -3.0)];
        let projection = principal_plane(&views(&vectors)).unwrap();
        let d01 = distance(projection.points[0], projection.points[1]);
        assert!((d01 - (4.0f64 + 2.25).sqrt()).abs() < 1e-6);
        assert!((projection.explained[0] + projection.explained[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_first_axis_follows_the_largest_spread_and_the_sign_is_fixed() {
        let vectors = [
            arr1(&[-5.0f32, 0.1, 0.0]),
            arr1(&[5.0, -0.1, 0.0]),
            arr1(&[0.0, 1.0, 0.0]),
            arr1(&[0.0, -1.0, 0.0]),
        ];
        let projection = principal_plane(&views(&vectors)).unwrap();
        assert!(projection.axes[0][0] > 0.99, "{:?}", projection.axes[0]);
        assert!(
            projection.points[1][0] > 0.0,
            "the largest component is positive"
        );
        // Given in another order, the same vectors give the same axes.
        let reversed: Vec<_> = vectors.iter().rev().cloned().collect();
        let again = principal_plane(&views(&reversed)).unwrap();
        for (a, b) in projection.axes.iter().zip(&again.axes) {
            assert!((a - b).iter().all(|d| d.abs() < 1e-9), "{a} {b}");
        }
    }

    #[test]
    #[expect(clippy::float_cmp, reason = "no spread is exactly zero")]
    fn no_spread_is_one_point_at_the_origin() {
        let fox = arr1(&[1.2753f32, -0.2010, -0.1606]);
        let vectors = [fox.clone(), fox];
        let projection = principal_plane(&views(&vectors)).unwrap();
        assert_eq!(projection.points, [[0.0, 0.0], [0.0, 0.0]]);
        assert_eq!(projection.explained, [0.0, 0.0]);
        // Two distinct points: one axis holds everything.
        let two = [arr1(&[0.0f32, 0.0, 0.0]), arr1(&[1.0, 2.0, 2.0])];
        let projection = principal_plane(&views(&two)).unwrap();
        assert!((projection.explained[0] - 1.0).abs() < 1e-12);
        assert_eq!(projection.explained[1], 0.0);
        assert!((distance(projection.points[0], projection.points[1]) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn nothing_or_mixed_widths_give_no_plane() {
        assert_eq!(principal_plane(&[]), None);
        let a = arr1(&[1.0f32, 2.0]);
        let b = arr1(&[1.0f32, 2.0, 3.0]);
        assert_eq!(principal_plane(&[a.view(), b.view()]), None);
    }
}
