function out = MIToolboxMex(flag, varargin)
% fsengine's Octave equivalent of the compiled MIToolboxMex (MIToolbox 1.x, Adam Pocock) that
% the helpers in doodzhou/OSFS's mi/ folder (h.m, mi.m, cmi.m, SU.m) call. Written for
% fsengine from MIToolbox's documented semantics, not from its C code; the authors' m-files
% are used unchanged and find this function instead of the compiled MEX file.
%
% Semantics (MIToolbox 1.x, the version of the C files in mi/):
% * a vector of doubles becomes integer states: floor(x) minus the smallest floor(x); the
%   number of states is max - min + 1 (states in between that no sample takes included);
% * probabilities are counts / n;
% * H(X) = -sum_x p(x) log p(x) over the states in ascending order, divided by log(2) at the
%   end; the terms are added one after another from the first (Octave's sum does so), which
%   gives exactly the running h = h - p log p, written here as 0 - sum (+0 for no term);
% * I(X;Y) = sum over the joint states, index = stateY * numStatesX + stateX ascending, of
%   p(x,y) * log(p(x,y) / p(x) / p(y)), divided by log(2);
% * H(X|Y) = -sum over the joint states (same index) of p(x,y) * log(p(x,y) / p(y)),
%   divided by log(2);
% * I(X;Y|Z) = H(X|Z) - H(X|YZ), where the joint variable YZ numbers the pairs
%   (state of Y, state of Z) 1, 2, ... in the order in which the samples first show them;
% * flag 3 merges the columns of a matrix into one joint variable the same way, column by
%   column (a single column is returned unchanged).
% Only the flags these helpers use are provided: 3, 4 (H), 6 (H(X|Y)), 7 (I) and 8 (I(X;Y|Z)).
  switch flag
    case 3
      out = merge_columns(varargin{1});
    case 4
      x = varargin{1};
      if size(x, 2) ~= 1
        out = -1;
      else
        out = entropy_of(x);
      end
    case 6
      x = varargin{1}; c = varargin{2};
      if isempty(x)
        out = 0;
      elseif isempty(c)
        out = entropy_of(x);
      else
        out = conditional_entropy(x, c);
      end
    case 7
      x = varargin{1}; y = varargin{2};
      if isempty(x) || isempty(y)
        out = 0;
      else
        out = mutual_information(x, y);
      end
    case 8
      x = varargin{1}; y = varargin{2}; z = varargin{3};
      if isempty(x) || isempty(y)
        out = 0;
      elseif isempty(z) || size(z, 2) ~= 1
        out = mutual_information(x, y);
      else
        out = conditional_entropy(x, z) - conditional_entropy(x, merge_pair(y, z));
      end
    otherwise
      error('MIToolboxMex (fsengine equivalent): flag %d is not provided', flag);
  end
end

function [s, k] = states(x)
  % 0-based integer states and their number (empty states between included)
  f = floor(x(:));
  lo = min(f);
  s = f - lo;
  k = max(f) - lo + 1;
end

function p = probabilities(s, k, n)
  p = accumarray(s + 1, 1, [k 1]) / n;
end

function h = entropy_of(x)
  n = numel(x);
  [s, k] = states(x);
  p = probabilities(s, k, n);
  p = p(p > 0);                  % ascending states
  h = (0 - sum(p .* log(p))) / log(2);
end

function h = conditional_entropy(x, c)
  % H(X|C): joint index = stateC * numStatesX + stateX, ascending
  n = numel(x);
  [sx, kx] = states(x);
  [sc, kc] = states(c);
  pj = probabilities(sc * kx + sx, kx * kc, n);
  pc = probabilities(sc, kc, n);
  i = find(pj > 0);              % ascending joint index
  joint = pj(i);
  cond = pc(floor((i - 1) / kx) + 1);
  h = (0 - sum(joint .* log(joint ./ cond))) / log(2);
end

function m = mutual_information(x, y)
  n = numel(x);
  [sx, kx] = states(x);
  [sy, ky] = states(y);
  pj = probabilities(sy * kx + sx, kx * ky, n);
  px = probabilities(sx, kx, n);
  py = probabilities(sy, ky, n);
  i = find(pj > 0);              % ascending joint index
  joint = pj(i);
  m = sum(joint .* log(joint ./ px(mod(i - 1, kx) + 1) ./ py(floor((i - 1) / kx) + 1))) / log(2);
end

function out = merge_pair(first, second)
  % the joint variable of two vectors: pairs numbered 1, 2, ... by first appearance
  [s1, k1] = states(first);
  [s2, k2] = states(second);
  key = s1 + s2 * k1 + 1;
  n = numel(key);
  at = zeros(k1 * k2, 1);
  at(key(end:-1:1)) = n:-1:1;    % repeated indices: the last assignment, the first sample, wins
  present = find(at > 0);
  [~, order] = sort(at(present));
  number = zeros(k1 * k2, 1);
  number(present(order)) = 1:numel(present);
  out = number(key);
end

function out = merge_columns(M)
  if isempty(M)
    out = zeros(0, 0);
  elseif size(M, 2) == 1
    out = M;
  else
    out = merge_pair(M(:, 1), M(:, 2));
    for j = 3:size(M, 2)
      out = merge_pair(out, M(:, j));
    end
  end
end
